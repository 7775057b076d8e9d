import importlib.util

# The skorch module imports torch; skip its doctests where torch is not installed.
collect_ignore = [] if importlib.util.find_spec("skorch") else ["sklearn_plc/skorch.py"]
