"""The package on files the Java command line wrote (LPRFF_TEST_FILES: a folder of b{bits}-{ipc}.arrow
feature files and model.lprff, written by lprff-cli's PythonInteropTest, which runs this suite and
compares the values with the Java library's itself)."""

import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import lprff

FILES = Path(os.environ.get("LPRFF_TEST_FILES", ""))
FEATURE_FILES = sorted(FILES.glob("b*-*.arrow")) if FILES.name else []


def test_the_java_files_are_there():
    assert len(FEATURE_FILES) == 12, f"expected b in 1..32 x file/stream in {FILES}"
    assert (FILES / "model.lprff").is_file()


@pytest.mark.parametrize("path", FEATURE_FILES, ids=lambda p: p.stem)
def test_codes_batches_and_values_agree(path):
    values, labels, meta = lprff.read_features(path)
    m, bits = int(meta["lprff.features"]), int(meta["lprff.bits"])
    assert values.dtype == np.float32 and values.shape[1] == m
    assert labels is not None and len(labels) == len(values)
    if bits < 32:
        codes, _ = lprff.read_codes(path)
        assert codes.dtype == (np.uint16 if bits == 16 else np.uint8)
        assert codes.max() < (1 << bits)
        assert np.array_equal(lprff.dequantize(codes, meta), values)
    else:
        with pytest.raises(lprff.FormatError, match="lprff.bits is 32"):
            lprff.read_codes(path)
    batches = list(lprff.iter_batches(path, 7))
    assert all(len(v) == 7 for v, _ in batches[:-1]) and 1 <= len(batches[-1][0]) <= 7
    assert np.array_equal(np.concatenate([v for v, _ in batches]), values)
    assert np.array_equal(np.concatenate([lab for _, lab in batches]), labels)


def rewritten(tmp_path, source, metadata=None, drop_features=False):
    """A copy of a feature file with its schema metadata changed (or its features dropped)."""
    table = pa.ipc.open_file(source).read_all()
    meta = dict(table.schema.metadata)
    meta.update({k.encode(): v.encode() for k, v in (metadata or {}).items()})
    if drop_features:
        table = table.drop_columns(["features"])
    table = table.replace_schema_metadata(meta)
    out = tmp_path / "changed.arrow"
    with pa.ipc.new_file(out, table.schema) as writer:
        writer.write_table(table)
    return out


@pytest.mark.parametrize("key, value, message", [
    ("lprff.format.version", "9", "lprff.format.version is '9', expected one of 1, 2"),
    ("lprff.bits", "3", "lprff.bits is 3, expected one of 1, 2, 4, 8, 16, 32"),
    ("lprff.bits", "four", "lprff.bits is 'four', expected an integer"),
    ("lprff.bit_order", "msb0", "lprff.bit_order is 'msb0', expected 'lsb0'"),
    ("lprff.quantizer", "dither", "lprff.quantizer is 'dither', expected one of"),
    ("lprff.features", "99", "column 'features' is fixed_size_binary"),
])
def test_metadata_it_does_not_understand_is_refused_by_name(tmp_path, key, value, message):
    bad = rewritten(tmp_path, FILES / "b4-file.arrow", {key: value})
    for read in (lprff.read_features, lprff.read_codes, lambda p: list(lprff.iter_batches(p, 5))):
        with pytest.raises(lprff.FormatError) as e:
            read(bad)
        assert message in str(e.value) and str(bad) in str(e.value)


def test_a_file_without_features_or_not_arrow_is_refused(tmp_path):
    with pytest.raises(lprff.FormatError, match="no 'features' column"):
        lprff.read_features(rewritten(tmp_path, FILES / "b8-file.arrow", drop_features=True))
    junk = tmp_path / "junk.arrow"
    junk.write_bytes(b"not arrow at all")
    with pytest.raises(lprff.FormatError, match="not an Arrow IPC file or stream"):
        lprff.read_features(junk)
    with pytest.raises(ValueError, match="batch_rows is 0"):
        next(lprff.iter_batches(FILES / "b8-file.arrow", 0))


def test_the_model_scores_rows_of_its_width():
    model = lprff.read_model(FILES / "model.lprff")
    assert model.weights.dtype == np.float32 and model.weights.shape[0] == len(model.bias)
    m = model.weights.shape[1]
    rows = np.ones((3, m), np.float32)
    assert lprff.predict(model, rows).shape == (3, len(model.bias))
    with pytest.raises(ValueError, match=f"expected \\[rows, {m}\\]"):
        lprff.predict(model, np.ones((3, m + 1), np.float32))
    with pytest.raises(lprff.FormatError, match="lprff.model.format_version is missing"):
        lprff.read_model(FILES / "b4-file.arrow")


@pytest.mark.parametrize("ipc", ["file", "stream"])
def test_float_features_are_an_arrow_tensor_and_codes_say_how_to_decode(ipc):
    """Format 2 marks the features column: pyarrow gives b = 32 rows as a numpy tensor without
    lprff, and the packed column's extension parameters are the metadata's decoding keys."""
    values, _, _ = lprff.read_features(FILES / f"b32-{ipc}.arrow")
    source = pa.memory_map(str(FILES / f"b32-{ipc}.arrow"))
    reader = pa.ipc.open_file(source) if ipc == "file" else pa.ipc.open_stream(source)
    column = reader.read_all().column("features")
    assert isinstance(column.type, pa.FixedShapeTensorType) and column.type.shape == [values.shape[1]]
    assert np.array_equal(column.combine_chunks().to_numpy_ndarray(), values)
    _, _, meta = lprff.read_features(FILES / f"b4-{ipc}.arrow")
    field = pa.ipc.open_file(FILES / "b4-file.arrow").schema.field("features")
    params = json.loads(field.metadata[b"ARROW:extension:metadata"])
    assert field.metadata[b"ARROW:extension:name"] == b"lprff.packed_codes"
    assert params == {"bits": 4, "features": int(meta["lprff.features"]), "bit_order": "lsb0",
                      "lo": float(meta["lprff.scale.lo"]), "step": float(meta["lprff.scale.step"])}


def test_format_1_files_stay_readable(tmp_path):
    """A version-1 file (no extension marks) reads to the same values."""
    for bits in (4, 32):
        source = FILES / f"b{bits}-file.arrow"
        table = pa.ipc.open_file(source).read_all()
        plain = pa.schema([f.remove_metadata() if f.name != "features" else
                           pa.field("features", getattr(f.type, "storage_type", f.type),
                                    nullable=False)
                           for f in table.schema],
                          metadata={**table.schema.metadata, b"lprff.format.version": b"1"})
        columns = [c.combine_chunks() for c in table.columns]
        columns = [c.storage if isinstance(c.type, pa.BaseExtensionType) else c for c in columns]
        old = tmp_path / f"v1-b{bits}.arrow"
        with pa.ipc.new_file(old, plain) as writer:
            writer.write_table(pa.Table.from_arrays(columns, schema=plain))
        assert np.array_equal(lprff.read_features(old)[0], lprff.read_features(source)[0])
