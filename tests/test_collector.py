"""The one helper for the garbage collector (:mod:`auditor._collector`): the collector is left as
it was found, however the block ends, and objects are frozen only when asked."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor._collector import paused


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


@given(on=st.booleans(), when=st.booleans(), freeze=st.booleans(), fail=st.booleans())
def test_the_collector_is_left_as_found(on: bool, when: bool, freeze: bool, fail: bool) -> None:
    gc.unfreeze()
    (gc.enable if on else gc.disable)()
    frozen_before = gc.get_freeze_count()
    try:
        with paused(freeze=freeze, when=when) as pause:
            assert pause.active is (on and when)
            assert gc.isenabled() is (on and not when)
            kept = [[i] for i in range(100)]  # containers alive at the end of the block
            if fail:
                raise RuntimeError("the block fails")
    except RuntimeError:
        assert fail
    assert gc.isenabled() is on
    froze = gc.get_freeze_count() > frozen_before
    assert froze is (on and when and freeze)
    assert kept


def test_the_block_may_ask_for_a_freeze_and_nested_pauses_change_nothing() -> None:
    gc.unfreeze()
    gc.enable()
    with paused() as outer:
        with paused(freeze=True) as inner:  # the collector is already off: nothing to do
            assert not inner.active
        assert not gc.isenabled() and gc.get_freeze_count() == 0
        outer.freeze = True
    assert gc.isenabled() and gc.get_freeze_count() > 0
