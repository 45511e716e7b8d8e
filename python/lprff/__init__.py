"""Read lprff feature files and model files (Apache Arrow IPC) into numpy.

A feature file holds a ``features`` column (FixedSizeBinary(ceil(m b / 8)) of b-bit codes, least
significant bit first, for b < 32; FixedSizeList<Float32>(m) for b = 32), an optional ``label``
and ``row_id``, and the ``lprff.*`` schema metadata that says how to decode, by the quantizer
(``lprff.quantizer``):

- stochastic, nearest, shared-threshold: the value of code k is ``lo + k * step`` rounded once to
  float32 (``lprff.scale.lo``, ``lprff.scale.step``);
- lloyd-max: the value of code k is ``codebook[k]`` (``lprff.codebook``: 2^b float32 numbers);
  the file has no ``lprff.scale.*`` keys;
- sigma-delta: codes on its own grid ``lo + k * step`` (or float32 features at b = 32), then
  condensed block by block: feature k of a row is ``sum_i u[i] * value[k * block + i]``
  (``lprff.condensation``: the block's u, ``lprff.quantizer.block`` numbers; also
  ``lprff.quantizer.order``), summed in float32 with one rounding per term, as the Java library's
  ``fma(u[i], value, sum)``, so a row has m / block features and a model m / block weights.

Every function here gives exactly the values the Java library gives, and refuses a file whose
metadata it does not understand or whose keys disagree, naming the key, the value and the file.
"""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pyarrow as pa

__all__ = [
    "FormatError",
    "Model",
    "dequantize",
    "iter_batches",
    "predict",
    "predict_classes",
    "read_codes",
    "read_features",
    "read_model",
]

FORMAT_VERSIONS = ("1", "2")  # 2: the features column marked as an Arrow extension type
MODEL_FORMAT_VERSION = "1"
BITS = (1, 2, 4, 8, 16, 32)
QUANTIZERS = ("stochastic", "nearest", "shared-threshold", "lloyd-max", "sigma-delta")
SIXTEEN_BITS = ("stochastic", "nearest")  # the others code 1, 2, 4 or 8 bits (and 32: floats)
SIGMA_DELTA_ORDERS = (1, 2, 3)
MAX_BLOCK = 256


class FormatError(ValueError):
    """A file that is not an lprff file this package understands; the message names why."""


# ------------------------------------------------------------------------------------ opening


class _Ipc:
    """An IPC file or stream, memory-mapped: its schema and its record batches, read lazily.

    A binary stream (``sys.stdin.buffer``, a socket's file) is read as the stream framing, front
    to back, batch by batch: ``lprff featurize ... --output - | python ...``.
    """

    def __init__(self, path):
        if hasattr(path, "read"):
            self.path = str(getattr(path, "name", "<stream>"))
            self._source = None  # the caller's to close
            self._file = None
            try:
                self._stream = pa.ipc.open_stream(path)
            except pa.ArrowInvalid as e:
                raise FormatError(f"{self.path}: not an Arrow IPC stream ({e})") from e
            self.schema = self._stream.schema
            return
        self.path = str(path)
        self._source = pa.memory_map(self.path)
        try:
            self._file = pa.ipc.open_file(self._source)
            self._stream = None
            self.schema = self._file.schema
        except pa.ArrowInvalid:  # not the file framing: the stream framing, or not Arrow at all
            self._source.seek(0)
            self._file = None
            try:
                self._stream = pa.ipc.open_stream(self._source)
            except pa.ArrowInvalid as e:
                self._source.close()
                raise FormatError(f"{self.path}: not an Arrow IPC file or stream ({e})") from e
            self.schema = self._stream.schema

    def batches(self):
        if self._file is not None:
            for i in range(self._file.num_record_batches):
                yield self._file.get_batch(i)
        else:
            yield from self._stream

    def close(self):
        if self._source is not None:
            self._source.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _metadata(schema):
    return {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}


def _require(meta, key, path):
    if key not in meta:
        raise FormatError(f"{path}: metadata key {key} is missing; is this an lprff file?")
    return meta[key]


def _integer(meta, key, path, low=1):
    text = _require(meta, key, path)
    try:
        value = int(text)
    except ValueError:
        raise FormatError(f"{path}: {key} is '{text}', expected an integer") from None
    if value < low:
        raise FormatError(f"{path}: {key} is {value}, expected >= {low}")
    return value


class _Decoding:
    """How a file's (or a model's) features decode: the value of each b-bit code (levels, float32
    [2^b], None for b = 32) and Sigma-Delta's condensation (float32 [block], else None)."""

    def __init__(self, m, bits, quantizer, levels, condensation):
        self.m, self.bits, self.quantizer = m, bits, quantizer
        self.levels, self.condensation = levels, condensation

    @property
    def features(self):
        """The features of a decoded row: m, or m / block condensed ones (Sigma-Delta)."""
        return self.m if self.condensation is None else self.m // len(self.condensation)

    def values(self, codes):
        """float32 [rows, m] values of integer codes [rows, m]."""
        return self.levels[np.asarray(codes, dtype=np.intp)]

    def condense(self, values):
        """[rows, m] values to the [rows, m / block] features a model reads (Sigma-Delta only)."""
        if self.condensation is None:
            return values
        return _condense(values, self.condensation)


def _floats(meta, key, path, count, why):
    """count float32 numbers of a comma-separated metadata value (Java's Float.toString items)."""
    text = _require(meta, key, path)
    items = text.split(",")
    if len(items) != count:
        raise FormatError(f"{path}: {key} has {len(items)} values, expected {count} ({why}): "
                          f"'{text}'")
    try:
        values = np.array([float(item) for item in items], dtype=np.float64)
    except ValueError:
        raise FormatError(f"{path}: {key} is '{text}', expected {count} comma-separated numbers"
                          ) from None
    if not np.all(np.isfinite(values)):
        raise FormatError(f"{path}: {key} is '{text}', expected finite numbers")
    return values.astype(np.float32)  # each item a float32 as Float.toString prints it: that float


def _absent(meta, key, path, why):
    if key in meta:
        raise FormatError(f"{path}: {key} is '{meta[key]}', but {why}; expected the key to be"
                          " absent")


def _sigma_delta_condensation(order, block):
    """Sigma-Delta's condensation u (float32 [block]) of order r over blocks of λ features, as the
    Java library derives it: v the coefficients of prod_j (1 + z + ... + z^(a_j - 1)), r boxes of
    lengths a_j summing to λ + r - 1 (differing by at most 1), u = sqrt(λ) v / |v|_2."""
    v = [1]
    extra = block - 1
    for j in range(order):
        length = 1 + extra // order + (1 if j < extra % order else 0)
        nxt = [0] * (len(v) + length - 1)
        for i, x in enumerate(v):
            for k in range(length):
                nxt[i + k] += x
        v = nxt
    norm = 0.0
    for x in v:
        norm += float(x) * float(x)
    factor = np.sqrt(block / norm)  # double, correctly rounded, as Java's Math.sqrt
    return np.array([np.float32(x * factor) for x in v], dtype=np.float32)


def _decoding(meta, path, m):
    """The decoding of m features by the metadata's quantizer, every key it needs checked, and
    every key it does not use refused (a codebook beside a grid, a grid beside a codebook)."""
    bits = _integer(meta, "lprff.bits", path)
    if bits not in BITS:
        raise FormatError(f"{path}: lprff.bits is {bits}, expected one of {', '.join(map(str, BITS))}")
    quantizer = _require(meta, "lprff.quantizer", path)
    if quantizer not in QUANTIZERS:
        raise FormatError(f"{path}: lprff.quantizer is '{quantizer}', expected one of "
                          f"{', '.join(QUANTIZERS)}")
    if bits == 16 and quantizer not in SIXTEEN_BITS:
        raise FormatError(f"{path}: lprff.bits is 16, but lprff.quantizer {quantizer} codes 1, 2,"
                          " 4 or 8 bits (or float32 features, 32)")
    if quantizer != "lloyd-max" or bits == 32:
        _absent(meta, "lprff.codebook", path, f"lprff.quantizer {quantizer} at {bits} bits has"
                " no codebook")
    levels = None
    if bits < 32 and quantizer == "lloyd-max":
        for key in ("lprff.scale.lo", "lprff.scale.step"):
            _absent(meta, key, path, "lprff.quantizer lloyd-max codes index lprff.codebook,"
                    " not a uniform grid")
        levels = _floats(meta, "lprff.codebook", path, 1 << bits, f"2^b, b = {bits}")
        if not np.all(levels[1:] > levels[:-1]):
            raise FormatError(f"{path}: lprff.codebook is '{meta['lprff.codebook']}', expected"
                              " increasing levels")
    elif bits < 32:
        scale = {}
        for key in ("lprff.scale.lo", "lprff.scale.step"):
            text = _require(meta, key, path)
            try:
                scale[key] = np.float32(float(text))
            except ValueError:
                raise FormatError(f"{path}: {key} is '{text}', expected a number") from None
        # lo and step are float32 numbers; a code has at most 16 bits and step 24, so
        # lo + code * step is exact in float64 and one cast rounds it as the library's float32
        # fma(code, step, lo) does.
        codes = np.arange(1 << bits, dtype=np.float64)
        levels = (np.float64(scale["lprff.scale.lo"])
                  + codes * np.float64(scale["lprff.scale.step"])).astype(np.float32)
    condensation = None
    keys = ("lprff.quantizer.order", "lprff.quantizer.block", "lprff.condensation")
    if quantizer == "sigma-delta":
        order = _integer(meta, "lprff.quantizer.order", path)
        if order not in SIGMA_DELTA_ORDERS:
            raise FormatError(f"{path}: lprff.quantizer.order is {order}, expected 1, 2 or 3")
        block = _integer(meta, "lprff.quantizer.block", path)
        if block > MAX_BLOCK:
            raise FormatError(f"{path}: lprff.quantizer.block is {block}, expected 1 to {MAX_BLOCK}")
        if bits < order:
            raise FormatError(f"{path}: lprff.bits is {bits}, but sigma-delta of"
                              f" lprff.quantizer.order {order} needs at least {order} bits")
        if m % block:
            raise FormatError(f"{path}: lprff.features is {m}, not a multiple of"
                              f" lprff.quantizer.block {block}")
        condensation = _floats(meta, "lprff.condensation", path, block,
                               f"lprff.quantizer.block = {block}")
        expected = _sigma_delta_condensation(order, block)
        if not np.array_equal(condensation.view(np.uint32), expected.view(np.uint32)):
            raise FormatError(f"{path}: lprff.condensation is '{meta['lprff.condensation']}', but"
                              f" lprff.quantizer.order {order} and lprff.quantizer.block {block}"
                              f" give {','.join(str(x) for x in expected)}")
    else:
        for key in keys:
            _absent(meta, key, path, f"lprff.quantizer is {quantizer}, not sigma-delta")
    return _Decoding(m, bits, quantizer, levels, condensation)


_LOW_29_BITS = np.uint64((1 << 29) - 1)  # a float64's significand bits below a float32's
_HALF_ULP = np.uint64(1 << 28)


def _fma32(a, b, c):
    """float32 a * b + c rounded once (Java's Math.fma on floats), elementwise, float32 inputs.

    a * b is exact in float64, and s = a * b + c rounded to float64 rounds to float32 as the exact
    sum does unless s lies exactly halfway between two float32 numbers (every float32 midpoint is
    a float64, and the exact sum is within ulp(s) / 2 of s): there the error of s (TwoSum: s + e
    is the exact sum), if not 0, moves s one float64 step toward the exact sum first.
    """
    p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    s = p + c
    # halfway: 25 significant bits (normal float32 range), or an odd multiple of 2^-150 (subnormal)
    halfway = (s.view(np.uint64) & _LOW_29_BITS) == _HALF_ULP
    tiny = np.abs(s) < 2.0 ** -126
    if tiny.any():
        halfway[tiny] = np.fmod(np.abs(s[tiny]) * 2.0 ** 150, 2.0) == 1.0
    if halfway.any():  # rare: the error of those sums only
        at = np.nonzero(halfway)
        ph, ch, sh = np.broadcast_to(p, s.shape)[at], np.broadcast_to(c, s.shape)[at], s[at]
        t = sh - ph
        e = (ph - (sh - t)) + (ch - t)
        s = s.copy()
        s[at] = np.where(e == 0, sh, np.nextafter(sh, np.where(e > 0, np.inf, -np.inf)))
    return s.astype(np.float32)


def _condense(values, u):
    """[rows, p] float32: feature k = sum_i u_i values[:, k λ + i], as Java's fma chain."""
    rows, m = values.shape
    block = len(u)
    terms = np.ascontiguousarray(values.reshape(-1, block).T)  # [λ, rows p]: term i of each sum
    total = np.zeros(terms.shape[1], dtype=np.float32)
    for i in range(block):
        total = _fma32(u[i], terms[i], total)
    return total.reshape(rows, m // block)


def _check_features(meta, schema, path):
    """(decoding, row bytes) of a feature file, every key a reader needs checked."""
    version = _require(meta, "lprff.format.version", path)
    if version not in FORMAT_VERSIONS:
        raise FormatError(f"{path}: lprff.format.version is '{version}', expected one of "
                          f"{', '.join(FORMAT_VERSIONS)} (a newer lprff wrote it? upgrade this package)")
    m = _integer(meta, "lprff.features", path)
    decoding = _decoding(meta, path, m)
    bits = decoding.bits
    if bits < 32:
        order = _require(meta, "lprff.bit_order", path)
        if order != "lsb0":
            raise FormatError(f"{path}: lprff.bit_order is '{order}', expected 'lsb0'")
    row_bytes = (m * bits + 7) // 8
    if "features" not in schema.names:
        raise FormatError(f"{path}: no 'features' column (columns: {', '.join(schema.names)})")
    kind = schema.field("features").type
    if isinstance(kind, pa.BaseExtensionType):  # arrow.fixed_shape_tensor (b = 32, format 2)
        kind = kind.storage_type
    if bits == 32:
        expected = pa.list_(pa.float32(), m)
        if not (pa.types.is_fixed_size_list(kind) and kind.list_size == m
                and kind.value_type == pa.float32()):
            raise FormatError(f"{path}: column 'features' is {kind}, expected {expected}")
    elif not (pa.types.is_fixed_size_binary(kind) and kind.byte_width == row_bytes):
        raise FormatError(f"{path}: column 'features' is {kind}, expected "
                          f"fixed_size_binary[{row_bytes}] (m = {m} at {bits} bits)")
    return decoding, row_bytes


# ------------------------------------------------------------------------------------ codes


def _codes(column, m, bits, row_bytes):
    """The codes of a FixedSizeBinary column as uint8 (b <= 8) or uint16 (b = 16), [rows, m]."""
    n = len(column)
    data = np.frombuffer(column.buffers()[1], dtype=np.uint8)
    raw = data[column.offset * row_bytes:(column.offset + n) * row_bytes].reshape(n, row_bytes)
    if bits == 16:
        return raw.view("<u2")[:, :m].astype(np.uint16)  # little-endian, native copy
    if bits == 8:
        return raw[:, :m].copy()
    if bits == 1:
        return np.unpackbits(raw, axis=1, bitorder="little")[:, :m]
    shifts = (np.arange(8 // bits, dtype=np.uint8) * bits)  # the low bits hold the first code
    return ((raw[:, :, None] >> shifts) & ((1 << bits) - 1)).reshape(n, -1)[:, :m]


def dequantize(codes, metadata, condensed=True):
    """float32 values of integer codes [rows, m] (e.g. read_codes'), as read_features gives them.

    The value of code k: lo + k * step rounded once to float32 (grid quantizers; exact in float64
    before the one cast), or codebook[k] (lloyd-max). Sigma-Delta's values are then condensed to
    [rows, m / block] unless condensed=False.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError(f"codes have shape {codes.shape}, expected [rows, m]")
    decoding = _decoding(metadata, "metadata", codes.shape[1])
    if decoding.bits == 32:
        raise FormatError("metadata: lprff.bits is 32: float32 features have no codes")
    if codes.size and (codes.min() < 0 or codes.max() >= (1 << decoding.bits)):
        raise ValueError(f"codes span [{codes.min()}, {codes.max()}], expected codes of"
                         f" {decoding.bits} bits")
    values = decoding.values(codes)
    return decoding.condense(values) if condensed else values


def _storage(column):
    """The column without its extension type (pyarrow knows arrow.fixed_shape_tensor)."""
    return column.storage if isinstance(column.type, pa.BaseExtensionType) else column


def _values(column, decoding, row_bytes, condensed):
    column = _storage(column)
    m = decoding.m
    if decoding.bits == 32:
        flat = column.flatten()
        values = flat.to_numpy(zero_copy_only=False).astype(np.float32, copy=False).reshape(-1, m)
    else:
        values = decoding.values(_codes(column, m, decoding.bits, row_bytes))
    return decoding.condense(values) if condensed else values


def _labels(batch):
    if "label" not in batch.schema.names:
        return None
    return batch.column(batch.schema.get_field_index("label")).to_numpy()


def _concat(parts, empty):
    return np.concatenate(parts) if parts else empty


# ------------------------------------------------------------------------------------ public


def read_features(path, condensed=True):
    """(values, labels, metadata) of a feature file, IPC file or stream framing.

    path: the file, or a binary stream in the stream framing (e.g. sys.stdin.buffer under
    ``lprff featurize ... --output - | python ...``).

    values: float32 [rows, n], the decoded features a model reads: n = m, or for Sigma-Delta
    n = m / lprff.quantizer.block condensed features (condensed=False: the m values before the
    condensation, codes on the grid or float32); labels: the label column as numpy (float32 for
    regression, int32 for classes) or None; metadata: every schema metadata string.
    """
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        decoding, row_bytes = _check_features(meta, ipc.schema, ipc.path)
        values, labels = [], []
        for batch in ipc.batches():
            values.append(_values(batch.column(batch.schema.get_field_index("features")),
                                  decoding, row_bytes, condensed))
            labels.append(_labels(batch))
    has_labels = "label" in ipc.schema.names
    n = decoding.features if condensed else decoding.m
    return (_concat(values, np.zeros((0, n), np.float32)),
            _concat(labels, np.zeros(0, np.float32)) if has_labels else None, meta)


def read_codes(path):
    """(codes, metadata): the integer codes, uint8 (b <= 8) or uint16 (b = 16), [rows, m].

    Refuses float32 files (b = 32: there are no codes).
    """
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        decoding, row_bytes = _check_features(meta, ipc.schema, ipc.path)
        m, bits = decoding.m, decoding.bits
        if bits == 32:
            raise FormatError(f"{ipc.path}: lprff.bits is 32: the features are float32 values,"
                              " not codes; use read_features")
        parts = [_codes(_storage(b.column(b.schema.get_field_index("features"))), m, bits,
                        row_bytes)
                 for b in ipc.batches()]
    dtype = np.uint16 if bits == 16 else np.uint8
    return _concat(parts, np.zeros((0, m), dtype)), meta


def iter_batches(path, batch_rows, condensed=True):
    """Yields (values, labels) of batch_rows rows at a time (the last may be shorter), reading one
    record batch at a time: the file is never read whole. values as read_features gives them;
    path as read_features takes it (a pipe too)."""
    if int(batch_rows) != batch_rows or batch_rows < 1:
        raise ValueError(f"batch_rows is {batch_rows}, expected an integer >= 1")
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        decoding, row_bytes = _check_features(meta, ipc.schema, ipc.path)
        has_labels = "label" in ipc.schema.names
        pending_v, pending_l, pending = [], [], 0
        for batch in ipc.batches():
            v = _values(batch.column(batch.schema.get_field_index("features")), decoding,
                        row_bytes, condensed)
            lab = _labels(batch)
            start = 0
            while start < len(v):
                take = min(batch_rows - pending, len(v) - start)
                pending_v.append(v[start:start + take])
                if has_labels:
                    pending_l.append(lab[start:start + take])
                pending += take
                start += take
                if pending == batch_rows:
                    yield np.concatenate(pending_v), np.concatenate(pending_l) if has_labels else None
                    pending_v, pending_l, pending = [], [], 0
        if pending:
            yield np.concatenate(pending_v), np.concatenate(pending_l) if has_labels else None


@dataclass(repr=False)
class Model:
    """A linear model of an ``.lprff`` file: score_j(z) = z . weights[j] + bias[j].

    z is a row of the features read_features gives: n = m of them, or for a Sigma-Delta model
    n = m / block condensed ones (condensation: the block's weights u, else None).
    ``repr(model)`` and ``str(model)`` give a one-line summary (task, classes, m, bits, quantizer,
    kernel and its parameters, projection, l2, standardization), not the weights.
    """

    weights: np.ndarray  # float32 [outputs, n]
    bias: np.ndarray  # float32 [outputs]
    task: str  # regression, binary or classification
    classes: int
    metadata: dict = field(repr=False)
    condensation: Optional[np.ndarray] = field(default=None, repr=False)  # float32 [block]

    def __repr__(self):
        meta = self.metadata
        kernel = meta.get("lprff.kernel", "?")
        if kernel == "matern":
            kernel += (f" nu={meta.get('lprff.nu', '?')}"
                       f" length_scale={meta.get('lprff.length_scale', '?')}")
        else:
            kernel += f" sigma={meta.get('lprff.sigma', '?')}"
        standardized = any(k.startswith("lprff.standardize.") for k in meta)
        return (f"lprff.Model(task={self.task}, classes={self.classes},"
                f" m={meta.get('lprff.features', '?')}, bits={meta.get('lprff.bits', '?')},"
                f" quantizer={meta.get('lprff.quantizer', '?')}, kernel={kernel},"
                f" projection={meta.get('lprff.projection', '?')},"
                f" l2={meta.get('lprff.model.l2', '?')},"
                f" standardization={'yes' if standardized else 'no'})")

    __str__ = __repr__


def read_model(path):
    """The model of an ``.lprff`` model file (an Arrow IPC file written by ``lprff train``)."""
    path = str(path)
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        version = _require(meta, "lprff.model.format_version", path)
        if version != MODEL_FORMAT_VERSION:
            raise FormatError(f"{path}: lprff.model.format_version is '{version}', expected "
                              f"'{MODEL_FORMAT_VERSION}'")
        task = _require(meta, "lprff.model.task", path)
        if task not in ("regression", "binary", "classification"):
            raise FormatError(f"{path}: lprff.model.task is '{task}', expected regression,"
                              " binary or classification")
        m = _integer(meta, "lprff.features", path)
        decoding = _decoding(meta, path, m)
        n = decoding.features
        outputs = _integer(meta, "lprff.model.outputs", path)
        classes = _integer(meta, "lprff.model.classes", path)
        table = pa.Table.from_batches(list(ipc.batches()), schema=ipc.schema)
    for name in ("output", "weights", "bias"):
        if name not in table.column_names:
            raise FormatError(f"{path}: no '{name}' column (columns: {', '.join(table.column_names)})")
    order = np.argsort(table.column("output").to_numpy())
    weights = table.column("weights").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    if len(order) != outputs or weights.size != outputs * n:
        of = (f"lprff.features = {m}" if n == m else f"lprff.features / lprff.quantizer.block ="
              f" {m} / {m // n} = {n}")
        raise FormatError(f"{path}: {len(order)} rows of {weights.size // max(1, len(order))}"
                          f" weights, expected lprff.model.outputs = {outputs} of {of}")
    weights = weights.astype(np.float32).reshape(outputs, n)[order]
    bias = table.column("bias").to_numpy().astype(np.float32)[order]
    return Model(weights, bias, task, classes, meta, decoding.condensation)


def predict(model, features):
    """Scores of feature rows (float32 [rows, n], e.g. read_features' values): [rows] for a model
    of one output (regression, binary: scikit-learn's shape), [rows, outputs] for k classes.

    A Sigma-Delta model reads n = m / block condensed features; it takes the m values before the
    condensation too (read_features(..., condensed=False)), condensed here first.
    Summed in float64: the Java library sums in float32, so the two agree to about m 2^-24 times
    the sum of |w_i z_i|, not bit for bit.
    """
    n = model.weights.shape[1]
    z = np.asarray(features)
    u = model.condensation
    if u is not None and z.ndim == 2 and z.shape[1] == n * len(u):
        z = _condense(z.astype(np.float32, copy=False), u)
    if z.ndim != 2 or z.shape[1] != n:
        wanted = f"{n}] (the model's m)" if u is None else (
            f"{n}] (the model's m / block condensed features) or [rows, {n * len(u)}]")
        raise ValueError(f"features have shape {z.shape}, expected [rows, {wanted}")
    z = z.astype(np.float64)
    scores = z @ model.weights.astype(np.float64).T + model.bias.astype(np.float64)
    return scores[:, 0] if scores.shape[1] == 1 else scores


def predict_classes(model, features):
    """Classes of feature rows, as ``lprff predict`` gives them: binary score > 0 (a hinge model's,
    ``lprff train --loss hinge``: score >= 0), else argmax."""
    if model.task == "regression":
        raise ValueError("the model is a regression model: use predict for its scores")
    scores = predict(model, features)
    if model.task == "binary":
        if model.metadata.get("lprff.train.loss") == "hinge":
            return (scores >= 0).astype(np.int32)
        return (scores > 0).astype(np.int32)
    return np.argmax(scores, axis=1).astype(np.int32)
