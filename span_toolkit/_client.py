"""Everything the inspect integration takes from the rest of the project, imported in this one place:
when a module moves (the scripted agents, the sandbox, the eval tools), only a line here changes."""

from client.providers import scripted
from client.providers.base import ProviderError
from client.sandbox import KINDS as SANDBOX_KINDS
from client.sandbox import Sandbox, SandboxError
from client.rundir import ResultLine
from client.scorer import Scorer
from client.solvers import timeagent_messages as timeagent
from server.tools import EVAL_TOOLS

__all__ = ["EVAL_TOOLS", "ProviderError", "ResultLine", "SANDBOX_KINDS", "Sandbox", "SandboxError", "Scorer",
           "scripted", "timeagent"]
