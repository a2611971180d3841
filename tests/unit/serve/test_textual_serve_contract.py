"""The contract between goldset and the INSTALLED textual-serve.

goldset_tui/serve/textual_serve_adapter.py uses private names of textual-serve (its docstring says
which and why). Private names change without notice, so each is checked here against the
installed package: it exists, it is the kind of thing the adapter takes it for (a coroutine
method, a plain method, an attribute set in ``__init__``), it has the parameters the adapter
passes, and it still does the job the adapter relies on. An upgrade of textual-serve that breaks
one fails here, naming it, instead of at the first labeller's browser session.

The last tests keep the contract complete: every private name the adapter uses is in the table
below, and no other module of goldset imports textual-serve or uses those names.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType
from textual_serve import server as ts_server
from textual_serve.app_service import AppService
from textual_serve.server import Server

from goldset_tui.serve import textual_serve_adapter as adapter

ADAPTER = Path(adapter.__file__).resolve()
SERVE = ADAPTER.parent
PACKAGE = SERVE.parent
INSTALLED = importlib.metadata.version("textual-serve")

# name -> (owner, kind, parameters after self). kind: "coroutine", "method" or "attribute".
PRIVATE: dict[str, tuple[type, str, tuple[str, ...]]] = {
    "_open_app_process": (AppService, "coroutine", ("width", "height")),
    "_build_environment": (AppService, "method", ("width", "height")),
    "_process": (AppService, "attribute", ()),
    "_stdin": (AppService, "attribute", ()),
    "_task": (AppService, "attribute", ()),
    "_process_messages": (Server, "coroutine", ("websocket", "app_service")),
}


def broken(what: str) -> str:
    return (
        f"textual-serve {INSTALLED} changed {what}; goldset_tui/serve/textual_serve_adapter.py "
        f"is written against textual-serve {adapter.WRITTEN_AGAINST}: read the new "
        "app_service.py and server.py and adapt the adapter (and this table)"
    )


async def nothing(*args: object) -> None:
    return None


def service(cls: type[AppService] = AppService) -> AppService:
    return cls("true", write_bytes=nothing, write_str=nothing, close=nothing, download_manager=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [n for n, (_, kind, _) in PRIVATE.items() if kind != "attribute"])
def test_each_private_method_exists_with_the_parameters_the_adapter_passes(name: str) -> None:
    owner, kind, parameters = PRIVATE[name]
    found = inspect.getattr_static(owner, name, None)
    assert inspect.isfunction(found), broken(f"{owner.__name__}.{name}: no longer a method")
    assert inspect.iscoroutinefunction(found) == (kind == "coroutine"), broken(
        f"{owner.__name__}.{name}: {'no longer' if kind == 'coroutine' else 'now'} a coroutine"
    )
    got = tuple(inspect.signature(found).parameters)[1:]
    assert got == parameters, broken(f"{owner.__name__}.{name}'s parameters to {got}")


@pytest.mark.parametrize("name", [n for n, (_, kind, _) in PRIVATE.items() if kind == "attribute"])
def test_each_private_attribute_is_set_when_a_service_is_made(name: str) -> None:
    made = service()
    assert name in vars(made), broken(f"AppService.__init__: it no longer sets {name}")
    assert getattr(made, name) is None, broken(f"AppService.{name}: no longer None before start")


def test_start_opens_the_process_through_the_hook_then_runs_it_in_the_task() -> None:
    # The adapter overrides _open_app_process and reads _task: both only matter if start() still
    # goes through them.
    seen: list[object] = []

    class Probe(AppService):
        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            seen.append(("open", width, height))

        async def run(self) -> None:
            seen.append("run")

    async def go() -> None:
        probe = service(Probe)
        await probe.start(123, 45)
        assert isinstance(probe._task, asyncio.Task), broken("start(): it no longer sets _task")
        await probe._task

    asyncio.run(go())
    assert seen == [("open", 123, 45), "run"], broken(f"start(): it made these calls: {seen}")


def test_stdin_is_the_private_stdin_that_send_meta_writes_to() -> None:
    written: list[bytes] = []

    class Pipe:
        def write(self, data: bytes) -> None:
            written.append(data)

        async def drain(self) -> None:
            return None

    made = service()
    made._stdin = pipe = Pipe()  # type: ignore[assignment]
    assert made.stdin is pipe, broken("AppService.stdin: it no longer returns _stdin")
    asyncio.run(made.set_terminal_size(90, 30))
    assert written and json.loads(written[0][5:]) == {"type": "resize", "width": 90, "height": 30}


def test_the_environment_holds_textual_serves_driver_and_the_size() -> None:
    environment = service()._build_environment(width=91, height=33)
    assert isinstance(environment, dict), broken("_build_environment: no longer a dict")
    assert all(isinstance(v, str) for v in environment.values())
    assert environment["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver", broken(
        "_build_environment's TEXTUAL_DRIVER"
    )
    assert (environment["COLUMNS"], environment["ROWS"]) == ("91", "33"), broken(
        "_build_environment's COLUMNS/ROWS"
    )


def test_the_message_loop_passes_keys_and_sizes_to_the_service() -> None:
    class Message:
        type = WSMsgType.TEXT

        def __init__(self, envelope: list[object]) -> None:
            self.envelope = envelope

        def json(self) -> list[object]:
            return self.envelope

    class Browser:
        def __aiter__(self) -> Any:
            async def messages() -> Any:
                yield Message(["stdin", "q"])
                yield Message(["resize", {"width": 100, "height": 40}])

            return messages()

    got: list[object] = []

    class Recorder:
        async def send_bytes(self, data: bytes) -> None:
            got.append(data)

        async def set_terminal_size(self, width: int, height: int) -> None:
            got.append((width, height))

    server = adapter.WebServer(command="goldset judge")
    asyncio.run(server.relay_browser(Browser(), Recorder()))  # type: ignore[arg-type]
    assert got == [b"q", (100, 40)], broken(f"_process_messages: it passed on {got}")


def test_to_int_reads_a_whole_number_or_gives_the_default() -> None:
    assert ts_server.to_int("12", 80) == 12 and ts_server.to_int("x", 80) == 80
    assert adapter.to_int is ts_server.to_int


def test_the_adapters_own_names_do_not_shadow_textual_serves() -> None:
    for cls, base in ((adapter.AppProcess, AppService), (adapter.WebServer, Server)):
        added = set(vars(cls)) - set(PRIVATE) - {"__module__", "__doc__", "__qualname__"}
        clashes = {n for n in added if n in dir(base) or n in vars(service())}
        assert not clashes, broken(f"{base.__name__}: it now has {sorted(clashes)} too")


def _private_names(tree: ast.AST) -> set[str]:
    """Every ``_name`` (not ``__dunder__``) read, set or defined in ``tree``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_every_private_name_the_adapter_uses_is_in_the_contract() -> None:
    used = _private_names(ast.parse(ADAPTER.read_text()))
    assert used == set(PRIVATE), (
        f"add to PRIVATE (and the adapter's docstring): {used - set(PRIVATE)}"
    )


def test_only_the_adapter_imports_textual_serve_or_uses_its_private_names() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == ADAPTER:
            continue
        tree = ast.parse(path.read_text())
        imports = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        if any(name.split(".")[0] == "textual_serve" for name in imports):
            offenders.append(f"{path.name} imports textual_serve")
        if path.parent == SERVE:  # serve/: no textual-serve private name, even through self
            names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            offenders += [f"{path.name} uses {n}" for n in sorted(names & set(PRIVATE))]
    assert not offenders, offenders
