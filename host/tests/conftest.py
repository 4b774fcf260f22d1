import sys
from pathlib import Path

# Test modules import the shared building blocks in host_helpers.py.
sys.path.insert(0, str(Path(__file__).parent))
