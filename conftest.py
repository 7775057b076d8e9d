import importlib.util

# Modules that import optional dependencies: skip their doctests without them.
collect_ignore = [
    path
    for path, dependency in [
        ("sklearn_plc/skorch.py", "skorch"),
        ("sklearn_plc/plotting.py", "matplotlib"),
    ]
    if importlib.util.find_spec(dependency) is None
]
