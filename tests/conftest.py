import sys
from pathlib import Path

# Tests run from a clean clone with the project installed (pip install -e .); this also lets
# them run from a checkout where it is not.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
