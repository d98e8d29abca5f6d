"""Runs τ²-bench's own Python tools (``shared/reference/tau2/domains/<domain>``, read in place, never copied) on
call sequences, and writes what each call returned or raised and which records it left changed:
``testdata/tau2/<domain>.calls.jsonl``. The test ``crates/bench/tests/tau2_tools.rs`` makes the same calls on
the Rust host and must get the same results, the same error texts and the same records.

The sequences are every task's expected actions (each on a fresh database) and the probes in
``testdata/tau2/<domain>.probes.json``: calls a model might make that τ² refuses or treats in an odd way.

Telecom has two sides, the agent's tools on the carrier's records and the user's on the phone: a call names its
``side``, and a telecom task's sequence is its initialization, its expected actions (by whoever they are for) and
its assertions, with τ²'s environment sync (the carrier's state carried to the phone) after every call. Two things
τ² leaves to chance or to the process are pinned for the comparison: a new draft bill's random id (here
B00000001, B00000002, ... in each sequence, as the port numbers them) and the phone's default VPN profile (a class
attribute in τ², which one task's broken VPN degrades for every later task in the process; here fresh per
sequence, as the port keeps it per phone).

τ² itself is not installed; the few of its modules the domain imports (its toolkit base, its DB base, the data
directory, loguru) are stood in for below with what the tools need of them. Needs pydantic 2.

    python3 scripts/tau2_reference.py airline > testdata/tau2/airline.calls.jsonl
"""

import copy
import datetime
import enum
import importlib.util
import json
import sys
import tomllib
import types
import uuid
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
        return cls.model_validate(read(Path(path)))


class BaseModelNoExtra(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


def read(path):
    """A data file as τ² reads it: JSON or TOML."""
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text())
    return json.loads(path.read_text())


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


PARTS = {"telecom": ["utils", "data_model", "tools", "user_data_model", "user_tools", "environment"]}


def load_domain(domain):
    stand_in("loguru", logger=_Logger())
    for package in ["tau2", "tau2.environment", "tau2.domains", "tau2.data_model", f"tau2.domains.{domain}"]:
        stand_in(package, __path__=[])
    stand_in("tau2.utils", __path__=[], load_file=lambda path: None)
    stand_in("tau2.utils.utils", DATA_DIR=SHARED / "benchmarks")
    stand_in("tau2.utils.pydantic_utils", BaseModelNoExtra=BaseModelNoExtra,
             update_pydantic_model_with_dict=lambda model, data: model.model_copy(update=data))
    stand_in("tau2.environment.db", DB=DB)
    stand_in("tau2.environment.toolkit", ToolKitBase=ToolKitBase, ToolType=ToolType, is_tool=is_tool)
    stand_in("tau2.environment.environment", Environment=object)
    stand_in("tau2.data_model.tasks", Task=dict)
    loaded = {}
    for part in PARTS.get(domain, ["utils", "data_model", "tools"]):
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
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def keyed(records):
    """A table's records by id, a list's by position, an object's fields by name."""
    if isinstance(records, list):
        return {str(k): v for k, v in enumerate(records)}
    return records


def changed(before, after):
    """The records of each table that differ from ``before``'s, or are new; and the ids that are gone."""
    out = {}
    for table, records in after.items():
        old = keyed(before.get(table, {}))
        records = keyed(records)
        diff = {k: v for k, v in records.items() if old.get(k) != v}
        gone = sorted(k for k in old if k not in records)
        if diff or gone:
            out[table] = {"changed": diff, "removed": gone}
    return out


def subclass_of(module, base):
    return next(
        v for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == module.__name__
    )


def task_sequences(domain, data):
    """Each task's calls: for telecom its initialization, expected actions and assertions, each with its side."""
    tasks = json.loads((data / "tasks.json").read_text())
    if domain == "telecom":
        base = set(json.loads((data / "split_tasks.json").read_text())["base"])
        tasks = [t for t in tasks if t["id"] in base]
    sequences = []
    for task in tasks:
        criteria = task.get("evaluation_criteria") or {}
        if domain != "telecom":
            sequences.append({"id": f"task {task['id']}", "calls": [
                {"name": a["name"], "arguments": a.get("arguments") or {}} for a in criteria.get("actions") or []
            ]})
            continue
        initial = (task.get("initial_state") or {}).get("initialization_actions") or []
        calls = [{"side": c["env_type"], "name": c["func_name"], "arguments": c.get("arguments") or {}} for c in initial]
        calls += [{"side": a.get("requestor") or "assistant", "name": a["name"], "arguments": a.get("arguments") or {}}
                  for a in criteria.get("actions") or []]
        calls += [{"side": c["env_type"], "name": c["func_name"], "arguments": c.get("arguments") or {}}
                  for c in criteria.get("env_assertions") or []]
        sequences.append({"id": f"task {task['id']}", "calls": calls})
    return sequences


def main():
    domain = sys.argv[1]
    modules = load_domain(domain)
    data = SHARED / "benchmarks" / "tau2" / domain
    two_sided = domain == "telecom"
    sides = {"assistant": (subclass_of(modules["data_model"], DB), subclass_of(modules["tools"], ToolKitBase),
                           read(data / ("db.toml" if two_sided else "db.json")))}
    if two_sided:
        sides["user"] = (subclass_of(modules["user_data_model"], DB), subclass_of(modules["user_tools"], ToolKitBase),
                         read(data / "user_db.toml"))
    sequences = task_sequences(domain, data)
    sequences += json.loads((REPO / "testdata" / "tau2" / f"{domain}.probes.json").read_text())

    def dumped(toolkits):
        if not two_sided:
            return toolkits["assistant"].db.model_dump(mode="json")
        return {**toolkits["assistant"].db.model_dump(mode="json"), **toolkits["user"].db.model_dump(mode="json")}

    def fresh():
        return {side: tools(db.model_validate(copy.deepcopy(initial))) for side, (db, tools, initial) in sides.items()}

    before = dumped(fresh())
    for sequence in sequences:
        toolkits = fresh()
        if two_sided:
            bills = iter(range(1, 1000))
            modules["tools"].uuid.uuid4 = lambda: uuid.UUID(int=next(bills) << 96)
            user_tools = subclass_of(modules["user_tools"], ToolKitBase)
            user_tools.default_vpn_details = modules["user_data_model"].VpnDetails(
                server_address="192.168.1.1", protocol="OpenVPN", server_performance="excellent")
            environment = types.SimpleNamespace(tools=toolkits["assistant"], user_tools=toolkits["user"])
        calls = []
        for call in sequence["calls"]:
            side = call.get("side", "assistant")
            record = {"name": call["name"], "arguments": call["arguments"]}
            if two_sided:
                record["side"] = side
            try:
                record["result"] = dump(getattr(toolkits[side], call["name"])(**copy.deepcopy(call["arguments"])))
            except Exception as error:  # τ² turns any exception into the tool's error message
                record["error"] = str(error)
            if two_sided:
                try:
                    modules["environment"].TelecomEnvironment.sync_tools(environment)
                except Exception as error:
                    record["sync_error"] = str(error)
            calls.append(record)
        line = {"id": sequence["id"], "calls": calls, "changed": changed(before, dumped(toolkits))}
        print(json.dumps(line, sort_keys=True))


if __name__ == "__main__":
    main()
