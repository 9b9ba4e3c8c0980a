"""Exceptions and warnings raised by widefs."""


class WidefsError(Exception):
    """Base class for widefs errors."""


class DataError(WidefsError, ValueError):
    """The input data cannot be used (missing column, bad values, too few examples, ...)."""


class NothingSelectedWarning(UserWarning):
    """A feature selector selected no feature at all."""


class HeuristicBoundWarning(UserWarning):
    """A risk bound was computed with quantities taken from the training data itself."""


class UnusedParameterWarning(UserWarning):
    """A parameter the caller set has no effect in the configuration chosen."""
