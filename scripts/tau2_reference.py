"""Runs τ²-bench's own Python tools (``shared/reference/tau2/domains/<domain>``, read in place, never copied) on
call sequences, and writes what each call returned or raised and which records it left changed:
``testdata/tau2/<domain>.calls.jsonl``. The test ``crates/bench/tests/tau2_tools.rs`` makes the same calls on
the Rust host and must get the same results, the same error texts and the same records.

The sequences are every task's expected actions (each on a fresh database) and the probes in
``testdata/tau2/<domain>.probes.json``: calls a model might make that τ² refuses or treats in an odd way.

τ² itself is not installed; the few of its modules the domain imports (its toolkit base, its DB base, the data
directory, loguru) are stood in for below with what the tools need of them. Needs pydantic 2.

    python3 scripts/tau2_reference.py airline > testdata/tau2/airline.calls.jsonl
"""

import copy
import enum
import importlib.util
import json
import sys
import types
from pathlib import Path

import pydantic

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def stand_in(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class _Logger:
    def __getattr__(self, _name):
        return lambda *args, **kwargs: None


class DB(pydantic.BaseModel):
    @classmethod
    def load(cls, path):
        return cls.model_validate(json.loads(Path(path).read_text()))


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def is_tool(_tool_type):
    return lambda function: function


class ToolKitBase:
    def __init__(self, db):
        self.db = db


def load_domain(domain):
    stand_in("loguru", logger=_Logger())
    for package in ["tau2", "tau2.utils", "tau2.environment", "tau2.domains", f"tau2.domains.{domain}"]:
        stand_in(package, __path__=[])
    stand_in("tau2.utils.utils", DATA_DIR=SHARED / "benchmarks")
    stand_in("tau2.environment.db", DB=DB)
    stand_in("tau2.environment.toolkit", ToolKitBase=ToolKitBase, ToolType=ToolType, is_tool=is_tool)
    stand_in(f"tau2.domains.{domain}.utils", **{f"{domain.upper()}_DB_PATH": None})
    loaded = {}
    for part in ["data_model", "tools"]:
        name = f"tau2.domains.{domain}.{part}"
        path = SHARED / "reference" / "tau2" / "domains" / domain / f"{part}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        loaded[part] = module
    return loaded


def dump(value):
    """A tool's result as JSON, as pydantic dumps its models."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


def changed(before, after):
    """The records of each table that differ from ``before``'s, or are new; and the ids that are gone."""
    out = {}
    for table, records in after.items():
        old = before.get(table, {})
        diff = {k: v for k, v in records.items() if old.get(k) != v}
        gone = sorted(k for k in old if k not in records)
        if diff or gone:
            out[table] = {"changed": diff, "removed": gone}
    return out


def main():
    domain = sys.argv[1]
    modules = load_domain(domain)
    db_class = next(
        v for v in vars(modules["data_model"]).values()
        if isinstance(v, type) and issubclass(v, DB) and v is not DB
    )
    tools_class = next(
        v for v in vars(modules["tools"]).values()
        if isinstance(v, type) and issubclass(v, ToolKitBase) and v is not ToolKitBase
    )
    data = SHARED / "benchmarks" / "tau2" / domain
    initial = json.loads((data / "db.json").read_text())
    sequences = []
    for task in json.loads((data / "tasks.json").read_text()):
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        sequences.append({"id": f"task {task['id']}", "calls": [
            {"name": a["name"], "arguments": a.get("arguments") or {}} for a in actions
        ]})
    sequences += json.loads((REPO / "testdata" / "tau2" / f"{domain}.probes.json").read_text())
    before = db_class.model_validate(copy.deepcopy(initial)).model_dump(mode="json")
    for sequence in sequences:
        db = db_class.model_validate(copy.deepcopy(initial))
        tools = tools_class(db)
        calls = []
        for call in sequence["calls"]:
            record = {"name": call["name"], "arguments": call["arguments"]}
            try:
                record["result"] = dump(getattr(tools, call["name"])(**copy.deepcopy(call["arguments"])))
            except Exception as error:  # τ² turns any exception into the tool's error message
                record["error"] = str(error)
            calls.append(record)
        line = {"id": sequence["id"], "calls": calls, "changed": changed(before, db.model_dump(mode="json"))}
        print(json.dumps(line, sort_keys=True))


if __name__ == "__main__":
    main()
