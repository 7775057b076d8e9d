"""The run paths of ``PLCClassifier.fit`` (see :mod:`sklearn_plc._paths.interface`)."""
