"""Read lprff feature files and model files (Apache Arrow IPC) into numpy.

A feature file holds a ``features`` column (FixedSizeBinary(ceil(m b / 8)) of b-bit codes, least
significant bit first, for b < 32; FixedSizeList<Float32>(m) for b = 32), an optional ``label``
and ``row_id``, and the ``lprff.*`` schema metadata that says how to dequantize: the value of code
k is ``lo + k * step`` rounded once to float32 (``lprff.scale.lo``, ``lprff.scale.step``). Every
function here gives exactly the values the Java library gives, and refuses a file whose metadata
it does not understand, naming the key, the value and the file.
"""

from dataclasses import dataclass, field

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
QUANTIZERS = ("stochastic", "nearest")


class FormatError(ValueError):
    """A file that is not an lprff file this package understands; the message names why."""


# ------------------------------------------------------------------------------------ opening


class _Ipc:
    """An IPC file or stream, memory-mapped: its schema and its record batches, read lazily."""

    def __init__(self, path):
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


def _check_features(meta, schema, path):
    """(m, bits, row bytes) of a feature file, every key a reader needs checked."""
    version = _require(meta, "lprff.format.version", path)
    if version not in FORMAT_VERSIONS:
        raise FormatError(f"{path}: lprff.format.version is '{version}', expected one of "
                          f"{', '.join(FORMAT_VERSIONS)} (a newer lprff wrote it? upgrade this package)")
    m = _integer(meta, "lprff.features", path)
    bits = _integer(meta, "lprff.bits", path)
    if bits not in BITS:
        raise FormatError(f"{path}: lprff.bits is {bits}, expected one of {', '.join(map(str, BITS))}")
    quantizer = _require(meta, "lprff.quantizer", path)
    if quantizer not in QUANTIZERS:
        raise FormatError(f"{path}: lprff.quantizer is '{quantizer}', expected one of "
                          f"{', '.join(QUANTIZERS)}")
    if bits < 32:
        order = _require(meta, "lprff.bit_order", path)
        if order != "lsb0":
            raise FormatError(f"{path}: lprff.bit_order is '{order}', expected 'lsb0'")
        for key in ("lprff.scale.lo", "lprff.scale.step"):
            try:
                float(_require(meta, key, path))
            except ValueError:
                raise FormatError(f"{path}: {key} is '{meta[key]}', expected a number") from None
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
    return m, bits, row_bytes


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


def dequantize(codes, metadata):
    """float32 values of integer codes: lo + code * step, rounded once to float32.

    lo and step are float32 numbers (the metadata prints them so); a code has at most 16 bits and
    step 24, so lo + code * step is exact in float64 and one cast rounds it as the library's
    float32 fma(code, step, lo) does.
    """
    lo = np.float64(np.float32(metadata["lprff.scale.lo"]))
    step = np.float64(np.float32(metadata["lprff.scale.step"]))
    return (lo + np.asarray(codes, dtype=np.float64) * step).astype(np.float32)


def _storage(column):
    """The column without its extension type (pyarrow knows arrow.fixed_shape_tensor)."""
    return column.storage if isinstance(column.type, pa.BaseExtensionType) else column


def _values(column, m, bits, row_bytes, meta):
    column = _storage(column)
    if bits == 32:
        flat = column.flatten()
        return flat.to_numpy(zero_copy_only=False).astype(np.float32, copy=False).reshape(-1, m)
    return dequantize(_codes(column, m, bits, row_bytes), meta)


def _labels(batch):
    if "label" not in batch.schema.names:
        return None
    return batch.column(batch.schema.get_field_index("label")).to_numpy()


def _concat(parts, empty):
    return np.concatenate(parts) if parts else empty


# ------------------------------------------------------------------------------------ public


def read_features(path):
    """(values, labels, metadata) of a feature file, IPC file or stream framing.

    values: float32 [rows, m], the dequantized features; labels: the label column as numpy
    (float32 for regression, int32 for classes) or None; metadata: every schema metadata string.
    """
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        m, bits, row_bytes = _check_features(meta, ipc.schema, ipc.path)
        values, labels = [], []
        for batch in ipc.batches():
            values.append(_values(batch.column(batch.schema.get_field_index("features")), m,
                                  bits, row_bytes, meta))
            labels.append(_labels(batch))
    has_labels = "label" in ipc.schema.names
    return (_concat(values, np.zeros((0, m), np.float32)),
            _concat(labels, np.zeros(0, np.float32)) if has_labels else None, meta)


def read_codes(path):
    """(codes, metadata): the integer codes, uint8 (b <= 8) or uint16 (b = 16), [rows, m].

    Refuses float32 files (b = 32: there are no codes).
    """
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        m, bits, row_bytes = _check_features(meta, ipc.schema, ipc.path)
        if bits == 32:
            raise FormatError(f"{ipc.path}: lprff.bits is 32: the features are float32 values,"
                              " not codes; use read_features")
        parts = [_codes(_storage(b.column(b.schema.get_field_index("features"))), m, bits,
                        row_bytes)
                 for b in ipc.batches()]
    dtype = np.uint16 if bits == 16 else np.uint8
    return _concat(parts, np.zeros((0, m), dtype)), meta


def iter_batches(path, batch_rows):
    """Yields (values, labels) of batch_rows rows at a time (the last may be shorter), reading one
    record batch at a time: the file is never read whole."""
    if int(batch_rows) != batch_rows or batch_rows < 1:
        raise ValueError(f"batch_rows is {batch_rows}, expected an integer >= 1")
    with _Ipc(path) as ipc:
        meta = _metadata(ipc.schema)
        m, bits, row_bytes = _check_features(meta, ipc.schema, ipc.path)
        has_labels = "label" in ipc.schema.names
        pending_v, pending_l, pending = [], [], 0
        for batch in ipc.batches():
            v = _values(batch.column(batch.schema.get_field_index("features")), m, bits,
                        row_bytes, meta)
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


@dataclass
class Model:
    """A linear model of an ``.lprff`` file: score_j(z) = z . weights[j] + bias[j]."""

    weights: np.ndarray  # float32 [outputs, m]
    bias: np.ndarray  # float32 [outputs]
    task: str  # regression, binary or classification
    classes: int
    metadata: dict = field(repr=False)


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
        outputs = _integer(meta, "lprff.model.outputs", path)
        classes = _integer(meta, "lprff.model.classes", path)
        table = pa.Table.from_batches(list(ipc.batches()), schema=ipc.schema)
    for name in ("output", "weights", "bias"):
        if name not in table.column_names:
            raise FormatError(f"{path}: no '{name}' column (columns: {', '.join(table.column_names)})")
    order = np.argsort(table.column("output").to_numpy())
    weights = table.column("weights").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    if len(order) != outputs or weights.size != outputs * m:
        raise FormatError(f"{path}: {len(order)} rows of {weights.size // max(1, len(order))}"
                          f" weights, expected lprff.model.outputs = {outputs} of lprff.features = {m}")
    weights = weights.astype(np.float32).reshape(outputs, m)[order]
    bias = table.column("bias").to_numpy().astype(np.float32)[order]
    return Model(weights, bias, task, classes, meta)


def predict(model, features):
    """Scores [rows, outputs] of feature rows (float32 [rows, m], e.g. read_features' values).

    Summed in float64: the Java library sums in float32, so the two agree to about m 2^-24 times
    the sum of |w_i z_i|, not bit for bit.
    """
    z = np.asarray(features, dtype=np.float64)
    if z.ndim != 2 or z.shape[1] != model.weights.shape[1]:
        raise ValueError(f"features have shape {z.shape}, expected [rows, "
                         f"{model.weights.shape[1]}] (the model's m)")
    return z @ model.weights.astype(np.float64).T + model.bias.astype(np.float64)


def predict_classes(model, features):
    """Classes of feature rows, as ``lprff predict`` gives them: binary score > 0, else argmax."""
    if model.task == "regression":
        raise ValueError("the model is a regression model: use predict for its scores")
    scores = predict(model, features)
    if model.task == "binary":
        return (scores[:, 0] > 0).astype(np.int32)
    return np.argmax(scores, axis=1).astype(np.int32)
