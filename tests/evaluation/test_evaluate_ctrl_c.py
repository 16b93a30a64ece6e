"""`manage.py evaluate` holds Ctrl-C while a question is asked, then hands it on."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from evaluation.management.commands.evaluate import _ctrl_c_held


@pytest.fixture
def sigint_handler():
    before = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_inside_is_raised_once_the_block_is_over(sigint_handler):
    signal.signal(signal.SIGINT, signal.default_int_handler)
    done = []
    with pytest.raises(KeyboardInterrupt):
        with _ctrl_c_held():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("the rest of the block ran")
    assert done == ["the rest of the block ran"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_handler_there_was_gets_it_once_and_an_ignored_one_ignores_it(sigint_handler):
    seen = []
    signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    with _ctrl_c_held():
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        assert seen == []
    assert seen == [signal.SIGINT]

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with _ctrl_c_held():
        os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_no_ctrl_c_no_interrupt_and_other_threads_hold_nothing(sigint_handler):
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with _ctrl_c_held():
        pass
    found = []

    def elsewhere():
        with _ctrl_c_held():
            found.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert found == [signal.default_int_handler]
