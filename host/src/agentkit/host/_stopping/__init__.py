"""Stopping a run, in one place.

* :mod:`.run_stop`: :class:`~.run_stop.RunStop`, how a run is asked to end
  early (abort, cancellation of its caller, its deadline; the first reason
  wins), :data:`~.run_stop.STOP_BUDGET`, the time it then has, and
  :class:`~.run_stop.AbortEvent`, the event a stop sets, which provider
  streams watch without a task of their own (the race itself is
  ``runtime/_abort.py``: the runtime cuts a stream when the event is set);
* :mod:`.policies`: stop policies, the public predicates consulted after a
  turn's results are in history (``max_turns``, ``stop_when``, ``any_of``);
* :mod:`.ending`: how a stopped or failed run ends: every pending call
  answered, the stopped response recorded, the end hooks' time floor;
* :mod:`.interrupt`: Ctrl-C in sync code (``run_sync``, the CLI) as an abort
  rather than a ``KeyboardInterrupt`` tearing through the run.

Calling code the host does not control within a stop's grace is
:mod:`agentkit.host._guard`.
"""
