"""Everything the inspect integration takes from the rest of the project, imported in this one place:
when a module moves (the scripted agents, the sandbox, the eval tools), only a line here changes."""

from span_toolkit.client.agents import scripted
from span_toolkit.client.providers.base import ProviderError
from span_toolkit.client.sandbox import KINDS as SANDBOX_KINDS
from span_toolkit.client.sandbox import Sandbox, SandboxError
from span_toolkit.client.rundir import ResultLine
from span_toolkit.client.scorer import Scorer
from span_toolkit.client.solvers import timeagent_messages as timeagent
from span_toolkit.server.tools import EVAL_TOOLS

__all__ = ["EVAL_TOOLS", "ProviderError", "ResultLine", "SANDBOX_KINDS", "Sandbox", "SandboxError", "Scorer",
           "scripted", "timeagent"]
