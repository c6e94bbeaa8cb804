"""xqzero for Python: game records, checkpoints and the project's protos (python/README.md).

Modules: records (read_games), checkpoint (load), board (FEN, ICCS, policy labels),
protos (message classes built from proto/*.proto with protoc at first use).
torch is imported only by checkpoint.load.
"""

from . import board, checkpoint, protos, records  # noqa: F401

__all__ = ["board", "checkpoint", "protos", "records"]
