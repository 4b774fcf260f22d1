"""Leave durable runs of every kind in a system database, as processes running ``agentkit.run`` workflows would.

``python make_runs.py URL VERSION RUNS_JSON``: ``RUNS_JSON`` is a list of
``[run_id, spec]``; a spec's keys ``fail``, ``park`` (publish the waiting
event and wait for an answer), ``block`` (wait without it) and ``child`` (a
subagent run's id, which parks) shape its workflow. The runs that finish are
awaited; then the process dies at once (``os._exit``), leaving the others
pending, as a killed process leaves its runs. No step is ever executed twice
here: each appends its name to ``LEDGER`` (when set) before it returns.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

from dbos import DBOS, SetWorkflowID

url, version, runs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
DBOS(config={"name": "agentkit", "system_database_url": url, "application_version": version,
             "run_admin_server": False})


def _note(name: str) -> None:
    if os.environ.get("LEDGER"):
        with open(os.environ["LEDGER"], "a", encoding="utf-8") as ledger:
            ledger.write(name + "\n")


@DBOS.step(name="model.request")
def model_request(turn: int) -> dict[str, object]:
    _note("model.request")
    return {"role": "assistant", "text": f"turn {turn}"}


@DBOS.step(name="tool.write_file")
def write_file(fail: bool) -> str:
    _note("tool.write_file")
    if fail:
        raise RuntimeError("the disk is full")
    return "wrote 12 bytes"


@DBOS.workflow(name="agentkit.run")
def run(spec: dict[str, object]) -> dict[str, object]:
    model_request(1)
    if spec.get("child"):
        with SetWorkflowID(str(spec["child"])):
            DBOS.start_workflow(run, {"model": spec["model"], "park": True})
    write_file(bool(spec.get("fail")))
    if spec.get("park"):
        DBOS.set_event("agentkit.waiting", {"call_id": "call-7", "tool": "write_file", "reason": "writes outside"})
        DBOS.recv("agentkit.approval", timeout_seconds=3600)
    if spec.get("block"):
        DBOS.recv("never", timeout_seconds=3600)
    return {"outcome": "completed", "text": "done"}


DBOS.launch()
handles = []
for run_id, spec in runs:
    with SetWorkflowID(run_id):
        handles.append((spec, DBOS.start_workflow(run, spec)))
for spec, handle in handles:
    if not (spec.get("park") or spec.get("block")):
        with contextlib.suppress(RuntimeError):  # the run that fails, as it should
            handle.get_result()
waiting = [spec.get("child") for spec, _ in handles if spec.get("child")]
waiting += [handle.get_workflow_id() for spec, handle in handles if spec.get("park")]
deadline = time.monotonic() + 120
while any(DBOS.get_event(run_id, "agentkit.waiting", timeout_seconds=0) is None for run_id in waiting):
    if time.monotonic() > deadline:
        sys.exit("the parked runs never published their waiting event")
    time.sleep(0.05)
blocked = [handle.get_workflow_id() for spec, handle in handles if spec.get("block")]
while any(len(DBOS.list_workflow_steps(run_id)) < 2 for run_id in blocked):
    time.sleep(0.05)
os._exit(0)  # as a killed process: the runs still waiting stay pending in the database
