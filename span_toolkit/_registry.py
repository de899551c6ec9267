"""inspect_ai's entry point (``[project.entry-points.inspect_ai] span_toolkit``): importing it registers
the task, the model providers and the sandbox environment."""

from .providers import span_models  # noqa: F401
from .sandbox import SpanSandboxEnvironment  # noqa: F401
from .task import span  # noqa: F401
