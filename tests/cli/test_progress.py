"""The analysis's progress events drive the terminal's progress display, one task each."""

from widefs.analysis import ProgressEvent
from widefs.cli._main import _Progress


class _Display:
    def __init__(self):
        self.calls, self.live = [], {}

    def add_task(self, description, total=None):
        task = len(self.calls)
        self.calls.append(("add", description, total))
        self.live[task] = description
        return task

    def update(self, task, description, completed):
        self.calls.append(("update", task, description, completed))

    def remove_task(self, task):
        self.calls.append(("remove", task))
        del self.live[task]


def test_each_task_is_added_once_updated_and_removed_when_finished():
    display = _Display()
    show = _Progress(display)
    show(ProgressEvent("analysis", "chance", 0, 2))
    show(ProgressEvent("search certificate: x", "search certificate: x"))
    show(ProgressEvent("search certificate: x", "search certificate: x", finished=True))
    show(ProgressEvent("analysis", "compare", 1, 2))
    show(ProgressEvent("nope", "never started", finished=True))  # nothing to remove
    assert [c[0] for c in display.calls] == ["add", "update", "add", "update", "remove", "update"]
    assert display.calls[0] == ("add", "chance", 2)
    assert display.calls[-1] == ("update", 0, "compare", 1)
    assert display.live == {0: "chance"}
