"""Message classes of the project's own proto/*.proto files, built at first use.

protoc compiles the schemas into a FileDescriptorSet (no generated Python code is kept in the
repository); the set is cached under $XDG_CACHE_HOME/xqzero (else ~/.cache/xqzero, else a
temporary directory), keyed by a hash of the .proto files and the protoc version, and the
classes are built from it in a private descriptor pool, so they never clash with other
generated modules. google/protobuf/descriptor.proto (imported by config.proto) is handed to
protoc from the Python runtime, so only protoc and python3-protobuf are needed.

    from xqzero import protos
    rec = protos.GameRecord()          # also MoveRecord, CheckpointMeta, NetworkConfig, Config...
    protos.message_class("xqzero.GameRecord")

XQZERO_PROTO_DIR overrides where the .proto files are (default: the repository's proto/),
XQZERO_PROTOC the protoc to run.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PROTO_FILES = ("config.proto", "checkpoint.proto", "game_record.proto")

_lock = threading.Lock()
_pool = None
_factory = None
_classes = {}


def proto_dir():
    """The directory holding the project's .proto files."""
    env = os.environ.get("XQZERO_PROTO_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "proto"


def _protoc():
    exe = os.environ.get("XQZERO_PROTOC") or shutil.which("protoc")
    if not exe:
        raise RuntimeError("xqzero.protos: protoc not found (install Debian's protobuf-compiler, "
                           "or set XQZERO_PROTOC to a protoc binary)")
    return exe


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for d in (os.path.join(base, "xqzero"), os.path.join(tempfile.gettempdir(), "xqzero-%d" % os.getuid())):
        try:
            os.makedirs(d, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            pass
    return None


def _compile(src, protoc):
    """The FileDescriptorSet bytes of PROTO_FILES (with their imports), from protoc."""
    runtime = descriptor_pb2.FileDescriptorSet()
    descriptor_pb2.DESCRIPTOR.CopyToProto(runtime.file.add())
    with tempfile.TemporaryDirectory(prefix="xqzero-protoc-") as tmp:
        dep = os.path.join(tmp, "descriptor.pb")
        out = os.path.join(tmp, "xqzero.pb")
        with open(dep, "wb") as f:
            f.write(runtime.SerializeToString())
        cmd = [protoc, "--proto_path=%s" % src, "--descriptor_set_in=%s" % dep, "--include_imports",
               "--descriptor_set_out=%s" % out] + [str(src / p) for p in PROTO_FILES]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("xqzero.protos: protoc failed on %s:\n%s" % (src, run.stderr.strip()))
        with open(out, "rb") as f:
            return f.read()


def _descriptor_set():
    src = proto_dir()
    missing = [p for p in PROTO_FILES if not (src / p).is_file()]
    if missing:
        raise RuntimeError("xqzero.protos: %s not found in %s (set XQZERO_PROTO_DIR)" % (", ".join(missing), src))
    protoc = _protoc()
    h = hashlib.sha256()
    for p in PROTO_FILES:
        h.update(p.encode() + b"\0" + (src / p).read_bytes() + b"\0")
    try:
        h.update(subprocess.run([protoc, "--version"], capture_output=True).stdout)
    except OSError as e:
        raise RuntimeError("xqzero.protos: cannot run protoc %s: %s" % (protoc, e))
    cache = _cache_dir()
    cached = os.path.join(cache, "protos-%s.pb" % h.hexdigest()[:16]) if cache else None
    if cached and os.path.isfile(cached):
        with open(cached, "rb") as f:
            return f.read()
    data = _compile(src, protoc)
    if cached:
        try:  # atomically, so concurrent first uses never see half a file
            fd, tmp = tempfile.mkstemp(dir=cache, prefix=".protos-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, cached)
        except OSError:
            pass
    return data


def pool():
    """The private DescriptorPool holding the project's schemas."""
    global _pool, _factory
    with _lock:
        if _pool is None:
            fds = descriptor_pb2.FileDescriptorSet.FromString(_descriptor_set())
            p = descriptor_pool.DescriptorPool()
            for f in fds.file:  # --include_imports lists every file after its imports
                p.Add(f)
            _pool = p
            if not hasattr(message_factory, "GetMessageClass"):  # protobuf < 4.22
                _factory = message_factory.MessageFactory(p)
        return _pool


def message_class(full_name):
    """The message class of `full_name`, e.g. "xqzero.GameRecord"."""
    with_pool = pool()
    with _lock:
        cls = _classes.get(full_name)
        if cls is None:
            desc = with_pool.FindMessageTypeByName(full_name)
            cls = _factory.GetPrototype(desc) if _factory else message_factory.GetMessageClass(desc)
            _classes[full_name] = cls
        return cls


def __getattr__(name):  # protos.GameRecord and the like
    if name[:1].isupper():
        try:
            return message_class("xqzero." + name)
        except KeyError:
            pass
    raise AttributeError("module 'xqzero.protos' has no attribute %r" % name)
