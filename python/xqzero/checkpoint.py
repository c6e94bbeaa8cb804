"""Reading xqzero checkpoint files (nn/checkpoint.h describes the container).

    from xqzero import checkpoint
    ck = checkpoint.load("runs/default/checkpoints/ckpt-00001000.xqz")
    ck.network            # {"blocks": 3, "channels": 32, ...}: every NetworkConfig field
    ck.step, ck.note, ck.created_unix_ms
    ck.weights            # OrderedDict name -> torch.Tensor ("stem.weight", "block0_bn1.running_mean", ...)
    ck.sections           # the other sections' raw bytes ("optimizer", "trainer", ...)

Every check of the C++ loader is made (magic, version, header crc32, exact size, end marker,
each section's crc32, label and plane counts); a failure raises ValueError naming the file and
the problem. expected_shapes(network) gives the tensor names and shapes nn/network.cpp
builds for an architecture.
"""

import collections
import dataclasses
import io
import os
import struct
import zlib
from typing import Dict

from . import board, protos

MAGIC = b"XQZCKPT1"
END = b"XQZEND\0\0"
VERSIONS = (1, 2)  # version 1 has no crc32 over the header and metadata


@dataclasses.dataclass
class Checkpoint:
    path: str
    version: int
    network: Dict[str, object]   # NetworkConfig fields, defaults filled in
    step: int
    created_unix_ms: int
    num_labels: int
    input_planes: int
    note: str
    weights: "collections.OrderedDict[str, object]"  # name -> torch.Tensor (CPU)
    sections: Dict[str, bytes]   # the sections other than "weights"
    meta: object                 # the CheckpointMeta message itself


def network_dict(config):
    """Every field of a NetworkConfig message (defaults included) as a dict."""
    return {f.name: getattr(config, f.name) for f in config.DESCRIPTOR.fields}


def input_planes(network):
    """Input planes of an architecture (nn/planes.h)."""
    return 14 * (network["history"] + 1) + 4 + (4 if network["attack_planes"] else 0)


def expected_shapes(network):
    """name -> shape of every tensor the network of `network` (a dict) saves, in order."""
    c, vc, vh = network["channels"], network["value_channels"], network["value_hidden"]
    shapes = collections.OrderedDict()

    def conv(name, out, inp, k, bias=False):
        shapes[name + ".weight"] = (out, inp, k, k)
        if bias:
            shapes[name + ".bias"] = (out,)

    def bn(name, n):
        for t in ("weight", "bias", "running_mean", "running_var"):
            shapes["%s.%s" % (name, t)] = (n,)
        shapes[name + ".num_batches_tracked"] = ()

    def linear(name, out, inp):
        shapes[name + ".weight"] = (out, inp)
        shapes[name + ".bias"] = (out,)

    conv("stem", c, input_planes(network), 3)
    bn("stem_bn", c)
    for i in range(network["blocks"]):
        p = "block%d_" % i
        conv(p + "conv1", c, c, 3)
        bn(p + "bn1", c)
        conv(p + "conv2", c, c, 3)
        bn(p + "bn2", c)
        if network["se"]:
            hidden = c // network["se_ratio"]
            linear(p + "se1", hidden, c)
            linear(p + "se2", 2 * c, hidden)
    conv("policy_conv", c, c, 3)
    bn("policy_bn", c)
    conv("policy_out", board.POLICY_PLANES, c, 1, bias=True)
    if network.get("soft_policy_head"):  # training-only heads, in nn/network.cpp's order
        conv("soft_policy_out", board.POLICY_PLANES, c, 1, bias=True)
    if network.get("reply_policy_head"):
        conv("reply_policy_out", board.POLICY_PLANES, c, 1, bias=True)
    conv("value_conv", vc, c, 1)
    bn("value_bn", vc)
    linear("value_fc1", vh, vc * 90 + (2 * c if network["global_pool"] else 0))
    linear("value_fc2", 3, vh)
    if network["material_head"]:
        linear("material_fc", 1, vh)
    if network.get("short_value_head"):
        linear("short_value_fc", 1, vh)
    return shapes


def _crc(data, start=0):
    return zlib.crc32(data, start) & 0xFFFFFFFF


def read_container(path):
    """(version, CheckpointMeta, {section name: bytes}) after every container check."""
    def fail(why):
        raise ValueError("checkpoint %s: %s" % (path, why))

    try:
        with open(path, "rb") as f:
            data = f.read()
    except IsADirectoryError:
        fail("is a directory, not a file")
    except OSError as e:
        fail("cannot open: %s" % (e.strerror or e))
    if len(data) < 8 or data[:8] != MAGIC:
        fail("not an xqzero checkpoint (bad magic bytes)")
    if len(data) < 12:
        fail("truncated: file ends inside the header")
    (version,) = struct.unpack_from("<I", data, 8)
    if version not in VERSIONS:
        fail("container version %d, this reader reads versions %d to %d" % (version, VERSIONS[0], VERSIONS[-1]))
    header = 20 if version >= 2 else 16
    if len(data) < header:
        fail("truncated: file ends inside the header")
    (meta_len,) = struct.unpack_from("<I", data, 12)
    if len(data) < header + meta_len:
        fail("truncated: file has %d bytes, metadata alone needs %d" % (len(data), header + meta_len))
    meta_bytes = data[header:header + meta_len]
    if version >= 2 and _crc(meta_bytes, _crc(data[:16])) != struct.unpack_from("<I", data, 16)[0]:
        fail("header or metadata is corrupt (crc32 mismatch)")
    try:
        meta = protos.message_class("xqzero.CheckpointMeta").FromString(meta_bytes)
    except Exception:
        fail("metadata does not parse")
    expected = header + meta_len + len(END) + sum(s.size for s in meta.sections)
    if len(data) < expected:
        fail("truncated: file has %d bytes, its metadata describes %d" % (len(data), expected))
    if len(data) > expected:
        fail("file has %d unexpected bytes after its data" % (len(data) - expected))
    if data[expected - len(END):] != END:
        fail("end marker missing")
    sections, off = {}, header + meta_len
    for s in meta.sections:
        chunk = data[off:off + s.size]
        off += s.size
        if _crc(chunk) != s.crc32:
            fail("section '%s' is corrupt (crc32 mismatch)" % s.name)
        sections[s.name] = chunk
    if "weights" not in sections:
        fail("no weights section")
    if meta.num_labels != board.NUM_LABELS:
        fail("written for %d policy labels, this reader has %d" % (meta.num_labels, board.NUM_LABELS))
    planes = input_planes(network_dict(meta.network))
    if meta.input_planes != planes:
        fail("written for %d input planes, its architecture makes %d" % (meta.input_planes, planes))
    return version, meta, sections


def load_weights(data, path="<bytes>"):
    """The tensors of a "weights" section (a torch::save archive), in the module's order."""
    import torch  # only here: reading records needs no torch

    try:
        module = torch.jit.load(io.BytesIO(data), map_location="cpu")
    except RuntimeError as e:
        raise ValueError("checkpoint %s: weights do not load: %s" % (path, str(e).splitlines()[0]))
    return collections.OrderedDict((k, v.detach()) for k, v in module.state_dict().items())


def load(path) -> Checkpoint:
    """Reads and checks a checkpoint file; raises ValueError naming it and the problem."""
    path = os.fspath(path)
    version, meta, sections = read_container(path)
    weights = load_weights(sections.pop("weights"), path)
    return Checkpoint(path, version, network_dict(meta.network), meta.step, meta.created_unix_ms,
                      meta.num_labels, meta.input_planes, meta.note, weights, sections, meta)
