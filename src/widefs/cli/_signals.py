"""How a command ends on SIGINT (Ctrl-C, status 130) or SIGTERM (status 143).

A signal raises in the main thread wherever it happens to be, and two places there can spoil
that: code that swallows what it raises (an exception in an at-fork handler, such as the one
logging registers, is printed and dropped while loky starts a worker), and clean-up code that
fails on the way out (an older joblib's abort raises ``RuntimeError`` when its executor's
thread has not started yet). So the handler records the signal first: :meth:`Signals.check`
raises it again at the next stage of the run and before anything is written, and the status
comes from what was received, whatever exception the unwinding ended with.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

__all__ = ["Signals", "Terminated", "check_signals", "end_workers"]

_ACTIVE: list[Signals] = []  # the handlers of the commands running, innermost last


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a run unwinds as after Ctrl-C."""


class Signals:
    """SIGINT and SIGTERM handlers for a command, recording what arrived (a context manager).

    SIGINT is handled only where it is at Python's default (a caller that ignores Ctrl-C,
    such as a job started in the background, keeps ignoring it). After the first signal,
    further ones are ignored while the run ends. Outside the main thread nothing is changed.

    Examples
    --------
    >>> with Signals() as signals:
    ...     signals.check()  # nothing received: returns
    >>> signals.received is None
    True
    """

    def __init__(self):
        self.received: int | None = None
        self._old: dict[int, object] = {}

    def __enter__(self) -> Signals:
        _ACTIVE.append(self)
        if threading.current_thread() is not threading.main_thread():
            return self
        self._install(signal.SIGTERM)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._install(signal.SIGINT)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.remove(self)
        for signum, old in self._old.items():
            signal.signal(signum, old)
        self._old.clear()

    def _install(self, signum: int) -> None:
        self._old[signum] = signal.signal(signum, self._handle)

    def _handle(self, signum, frame) -> None:
        for handled in self._old:
            signal.signal(handled, signal.SIG_IGN)
        self.received = signum
        self._raise()

    def _raise(self):
        raise Terminated(self.received) if self.received == signal.SIGTERM else KeyboardInterrupt

    def check(self) -> None:
        """Raise the signal received, if one was (in the main thread only: a callback running
        in a library's thread must not end that thread instead of the run)."""
        if self.received is not None and threading.current_thread() is threading.main_thread():
            self._raise()

    def status(self, exc: BaseException) -> int | None:
        """The exit status for a command that ended with ``exc``: 130 or 143 after a signal
        (recorded, or a ``KeyboardInterrupt`` raised without this handler), else ``None``."""
        if self.received == signal.SIGTERM or isinstance(exc, Terminated):
            return 128 + signal.SIGTERM
        if self.received is not None or isinstance(exc, KeyboardInterrupt):
            return 128 + signal.SIGINT
        return None

    def ended(self, exc: BaseException) -> int | None:
        """After a signal (see :meth:`status`): the run's workers ended, its one line on
        stderr, and the status returned; else ``None``, nothing done."""
        status = self.status(exc)
        if status is not None:
            end_workers()
            print(f"widefs: {_LINES[status]}", file=sys.stderr)
        return status


_LINES = {128 + signal.SIGINT: "interrupted", 128 + signal.SIGTERM: "terminated"}


def check_signals() -> None:
    """:meth:`Signals.check` of the command running, if any (see the module's text)."""
    if _ACTIVE:
        _ACTIVE[-1].check()


def end_workers() -> None:
    """Kill the worker processes of joblib's loky executor, if this run started any: otherwise
    they outlive an interrupted run for minutes, holding its output pipe."""
    loky = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(loky, "_executor", None)
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.shutdown(wait=False, kill_workers=True)
