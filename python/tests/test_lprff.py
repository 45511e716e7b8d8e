"""The package on files the Java command line wrote (LPRFF_TEST_FILES: a folder of b{bits}-{ipc}.arrow
feature files (stochastic), q-{quantizer}-b{bits}-{ipc}.arrow files of the other quantizers,
model.lprff, and a Sigma-Delta model with rows of its spec (model-sigma-delta.lprff, .arrow),
written by lprff-cli's PythonInteropTest, which runs this suite and compares the values with the
Java library's itself)."""

import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import lprff

FILES = Path(os.environ.get("LPRFF_TEST_FILES", ""))
FEATURE_FILES = sorted(FILES.glob("b*-*.arrow")) if FILES.name else []
QUANTIZED_FILES = sorted(FILES.glob("q-*.arrow")) if FILES.name else []


def quantized(name):
    """The q-{name}-*.arrow files."""
    return [p for p in QUANTIZED_FILES if p.name.startswith(f"q-{name}-")]


def test_the_java_files_are_there():
    assert len(FEATURE_FILES) == 12, f"expected b in 1..32 x file/stream in {FILES}"
    assert (FILES / "model.lprff").is_file()
    for name, count in (("lloyd-max", 6), ("shared-threshold", 2), ("sigma-delta-2-8", 4),
                        ("sigma-delta-1-3", 2)):
        assert len(quantized(name)) == count, f"q-{name}-b*.arrow in {FILES}"
    assert (FILES / "model-sigma-delta.lprff").is_file()


@pytest.mark.parametrize("path", FEATURE_FILES + QUANTIZED_FILES, ids=lambda p: p.stem)
def test_codes_batches_and_values_agree(path):
    values, labels, meta = lprff.read_features(path)
    m, bits = int(meta["lprff.features"]), int(meta["lprff.bits"])
    block = int(meta.get("lprff.quantizer.block", 1))
    assert values.dtype == np.float32 and values.shape[1] == m // block
    assert labels is not None and len(labels) == len(values)
    full, _, _ = lprff.read_features(path, condensed=False)
    assert full.dtype == np.float32 and full.shape == (len(values), m)
    if bits < 32:
        codes, _ = lprff.read_codes(path)
        assert codes.dtype == (np.uint16 if bits == 16 else np.uint8)
        assert codes.max() < (1 << bits)
        assert np.array_equal(lprff.dequantize(codes, meta), values)
        assert np.array_equal(lprff.dequantize(codes, meta, condensed=False), full)
    else:
        with pytest.raises(lprff.FormatError, match="lprff.bits is 32"):
            lprff.read_codes(path)
    if block == 1:
        assert np.array_equal(full, values)
    for condensed, expected in ((True, values), (False, full)):
        batches = list(lprff.iter_batches(path, 7, condensed=condensed))
        assert all(len(v) == 7 for v, _ in batches[:-1]) and 1 <= len(batches[-1][0]) <= 7
        assert np.array_equal(np.concatenate([v for v, _ in batches]), expected)
        assert np.array_equal(np.concatenate([lab for _, lab in batches]), labels)


def extension(path):
    """The features column's extension name and parameters (JSON) of a file or stream."""
    source = pa.memory_map(str(path))
    schema = (pa.ipc.open_stream(source) if path.stem.endswith("stream")
              else pa.ipc.open_file(source)).schema
    field = schema.field("features")
    return field.metadata[b"ARROW:extension:name"], json.loads(field.metadata[b"ARROW:extension:metadata"])


@pytest.mark.parametrize("path", quantized("lloyd-max"), ids=lambda p: p.stem)
def test_lloyd_max_codes_index_the_codebook(path):
    values, _, meta = lprff.read_features(path)
    bits = int(meta["lprff.bits"])
    assert "lprff.scale.lo" not in meta and "lprff.scale.step" not in meta
    if bits == 32:
        assert "lprff.codebook" not in meta
        return
    codebook = np.array([np.float32(float(x)) for x in meta["lprff.codebook"].split(",")])
    assert len(codebook) == 1 << bits and np.all(np.diff(codebook) > 0)
    codes, _ = lprff.read_codes(path)
    assert np.array_equal(values, codebook[codes])  # the float32 levels themselves
    assert np.array_equal(codebook, -codebook[::-1])  # the arcsine law's levels are symmetric
    name, params = extension(path)
    assert name == b"lprff.packed_codes"
    assert params == {"bits": bits, "features": int(meta["lprff.features"]), "bit_order": "lsb0",
                      "codebook": [float(x) for x in meta["lprff.codebook"].split(",")]}


@pytest.mark.parametrize("path", quantized("sigma-delta"), ids=lambda p: p.stem)
def test_sigma_delta_rows_are_condensed_blocks(path):
    values, _, meta = lprff.read_features(path)
    full, _, _ = lprff.read_features(path, condensed=False)
    m, bits = int(meta["lprff.features"]), int(meta["lprff.bits"])
    order, block = int(meta["lprff.quantizer.order"]), int(meta["lprff.quantizer.block"])
    u = np.array([np.float32(float(x)) for x in meta["lprff.condensation"].split(",")])
    assert len(u) == block and m % block == 0 and values.shape[1] == m // block
    assert np.array_equal(u, lprff._sigma_delta_condensation(order, block))
    assert abs(float(np.sum(u.astype(np.float64) ** 2)) - block) < 1e-5  # |u|^2 = λ
    # Java's float32 chain, one fma at a time, against the exact sum: within a few float ulps.
    exact = np.einsum("rki,i->rk", full.reshape(len(full), m // block, block).astype(np.float64),
                      u.astype(np.float64))
    assert np.allclose(values, exact, rtol=0, atol=block * 2.0 ** -24 * np.abs(exact).max() + 1e-30)
    if bits < 32:
        name, params = extension(path)
        assert params == {"bits": bits, "features": m, "bit_order": "lsb0",
                          "lo": float(meta["lprff.scale.lo"]),
                          "step": float(meta["lprff.scale.step"]),
                          "condensation": [float(x) for x in meta["lprff.condensation"].split(",")]}


def exact_fma32(a, b, c):
    """float32 a * b + c rounded once, in exact rational arithmetic (round half to even)."""
    x = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    r = np.float32(float(x))
    around = [np.nextafter(r, np.float32(-np.inf)), r, np.nextafter(r, np.float32(np.inf))]
    return min(around, key=lambda f: (abs(Fraction(float(f)) - x),
                                      int(np.array(f).view(np.uint32)) & 1))


def test_fma32_rounds_once():
    """The emulated float32 fma of the condensation: exact on random terms and on sums whose
    float64 rounding lands exactly halfway between two floats (one rounding in float64 and one in
    float32 would give 1.0 here, the even neighbour)."""
    a = np.float32((1 + 2896 * 2.0 ** -23) * 2.0 ** -24)
    b = np.float32(1 - 2895 * 2.0 ** -23)
    one = np.float32(1)
    assert (np.float64(a) * np.float64(b) + 1.0) == 1 + 2.0 ** -24  # halfway in float64
    assert lprff._fma32(np.array([a]), np.array([b]), np.array([one]))[0] == np.float32(1 + 2.0 ** -23)
    assert lprff._fma32(np.array([-a]), np.array([b]), np.array([-one]))[0] == -np.float32(1 + 2.0 ** -23)
    rng = np.random.default_rng(17)
    n = 3000
    x, y = rng.normal(size=(2, n)).astype(np.float32)
    z = (rng.normal(size=n) * 10.0 ** rng.integers(-9, 4, size=n)).astype(np.float32)
    # and sums steered to the float32 midpoints next to x * y
    p = x.astype(np.float64) * y.astype(np.float64)
    r = p.astype(np.float32)
    mid = (r.astype(np.float64) + np.nextafter(r, np.float32(np.inf)).astype(np.float64)) / 2
    w = np.float32(1) * (mid - p).astype(np.float32)
    for a, b, c in ((x, y, z), (x, y, w)):
        got = lprff._fma32(a, b, c)
        want = np.array([exact_fma32(*t) for t in zip(a, b, c)], dtype=np.float32)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def rewritten(tmp_path, source, metadata=None, drop_features=False):
    """A copy of a feature file with its schema metadata changed (a value None: the key removed)
    (or its features dropped)."""
    table = pa.ipc.open_file(source).read_all()
    meta = dict(table.schema.metadata)
    for k, v in (metadata or {}).items():
        if v is None:
            meta.pop(k.encode(), None)
        else:
            meta[k.encode()] = v.encode()
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


SIGMA_DELTA_U = "0.36514837,0.73029673,1.0954452,1.4605935,1.4605935,1.0954452,0.73029673,0.36514837"


@pytest.mark.parametrize("source, changes, message", [
    ("q-lloyd-max-b2-file", {"lprff.codebook": "-0.2,0.1,0.2"},
     "lprff.codebook has 3 values, expected 4 (2^b, b = 2)"),
    ("q-lloyd-max-b2-file", {"lprff.codebook": "-0.2,x,0.1,0.2"}, "expected 4 comma-separated numbers"),
    ("q-lloyd-max-b2-file", {"lprff.codebook": "-0.2,0.1,-0.1,0.2"}, "expected increasing levels"),
    ("q-lloyd-max-b2-file", {"lprff.codebook": "-0.2,-0.1,0.1,Infinity"}, "expected finite numbers"),
    ("q-lloyd-max-b2-file", {"lprff.codebook": None}, "metadata key lprff.codebook is missing"),
    ("q-lloyd-max-b2-file", {"lprff.scale.lo": "-0.2"},
     "lprff.scale.lo is '-0.2', but lprff.quantizer lloyd-max codes index lprff.codebook"),
    ("q-lloyd-max-b8-file", {"lprff.bits": "16"},
     "lprff.bits is 16, but lprff.quantizer lloyd-max codes 1, 2, 4 or 8 bits"),
    ("b4-file", {"lprff.codebook": "1,2"}, "lprff.codebook is '1,2', but lprff.quantizer"
     " stochastic at 4 bits has no codebook; expected the key to be absent"),
    ("b4-file", {"lprff.condensation": "1"}, "lprff.condensation is '1', but lprff.quantizer is"
     " stochastic, not sigma-delta"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.condensation": "1,2,3"},
     "lprff.condensation has 3 values, expected 8 (lprff.quantizer.block = 8)"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.condensation": SIGMA_DELTA_U.replace("0.36514837", "0.3651484")},
     "but lprff.quantizer.order 2 and lprff.quantizer.block 8 give 0.36514837,"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.quantizer.order": "1"},
     "but lprff.quantizer.order 1 and lprff.quantizer.block 8 give"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.quantizer.order": "4"},
     "lprff.quantizer.order is 4, expected 1, 2 or 3"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.quantizer.block": "0"},
     "lprff.quantizer.block is 0, expected >= 1"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.quantizer.block": "257"},
     "lprff.quantizer.block is 257, expected 1 to 256"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.quantizer.block": None},
     "metadata key lprff.quantizer.block is missing"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.features": "44"},
     "lprff.features is 44, not a multiple of lprff.quantizer.block 8"),
    ("q-sigma-delta-2-8-b4-file", {"lprff.scale.step": None}, "metadata key lprff.scale.step is missing"),
    ("q-sigma-delta-1-3-b1-file", {"lprff.quantizer.order": "2", "lprff.condensation": None},
     "lprff.bits is 1, but sigma-delta of lprff.quantizer.order 2 needs at least 2 bits"),
])
def test_inconsistent_quantizer_keys_are_refused_by_name(tmp_path, source, changes, message):
    bad = rewritten(tmp_path, FILES / f"{source}.arrow", changes)
    for read in (lprff.read_features, lprff.read_codes, lambda p: list(lprff.iter_batches(p, 5))):
        with pytest.raises(lprff.FormatError) as e:
            read(bad)
        assert message in str(e.value) and str(bad) in str(e.value), str(e.value)


def test_dequantize_checks_the_metadata_it_is_given():
    codes, meta = lprff.read_codes(FILES / "q-lloyd-max-b2-file.arrow")
    with pytest.raises(lprff.FormatError, match="metadata: lprff.codebook has 2 values"):
        lprff.dequantize(codes, {**meta, "lprff.codebook": "-1,1"})
    with pytest.raises(ValueError, match=r"codes span \[0, 4\], expected codes of 2 bits"):
        lprff.dequantize(np.array([[0, 4]]), meta)


def test_a_sigma_delta_model_reads_condensed_features():
    """m / block weights; predict takes the condensed rows, or the m values and condenses them."""
    model = lprff.read_model(FILES / "model-sigma-delta.lprff")
    meta = model.metadata
    m, block = int(meta["lprff.features"]), int(meta["lprff.quantizer.block"])
    assert model.weights.shape == (1, m // block) and len(model.condensation) == block
    values, labels, _ = lprff.read_features(FILES / "model-sigma-delta.arrow")
    full, _, _ = lprff.read_features(FILES / "model-sigma-delta.arrow", condensed=False)
    scores = lprff.predict(model, values)
    assert np.array_equal(lprff.predict(model, full), scores)  # condensed the same way
    assert scores.shape == (len(values),)  # one output: [rows], as scikit-learn's regressors
    assert np.mean((scores - labels) ** 2) < np.var(labels)  # it learned something
    with pytest.raises(ValueError, match=f"expected \\[rows, {m // block}\\] .* or \\[rows, {m}\\]"):
        lprff.predict(model, full[:, :-1])
    plain = lprff.read_model(FILES / "model.lprff")
    assert plain.condensation is None


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
    assert len(model.bias) == 1 and lprff.predict(model, rows).shape == (3,)  # regression: [rows]
    with pytest.raises(ValueError, match=f"expected \\[rows, {m}\\]"):
        lprff.predict(model, np.ones((3, m + 1), np.float32))
    with pytest.raises(lprff.FormatError, match="lprff.model.format_version is missing"):
        lprff.read_model(FILES / "b4-file.arrow")


def test_predict_gives_rows_for_one_output_and_rows_by_outputs_for_classes():
    """One output (regression, binary): [rows], scikit-learn's shape; k classes: [rows, k];
    predict_classes gives [rows] either way."""
    model = lprff.read_model(FILES / "model.lprff")
    m = model.weights.shape[1]
    rows = np.random.default_rng(7).standard_normal((5, m)).astype(np.float32)
    scores = lprff.predict(model, rows)
    expected = rows.astype(np.float64) @ model.weights[0].astype(np.float64) + float(model.bias[0])
    assert scores.shape == (5,) and np.allclose(scores, expected, rtol=0, atol=1e-12)
    binary = lprff.Model(model.weights, model.bias, "binary", 2, model.metadata)
    assert lprff.predict(binary, rows).shape == (5,)
    assert np.array_equal(lprff.predict_classes(binary, rows), (scores > 0).astype(np.int32))
    three = lprff.Model(np.stack([model.weights[0], -model.weights[0], 0 * model.weights[0]]),
                        np.array([0, 0, 0], np.float32), "classification", 3, model.metadata)
    scores3 = lprff.predict(three, rows)
    assert scores3.shape == (5, 3)
    assert np.array_equal(lprff.predict_classes(three, rows), np.argmax(scores3, axis=1))
    with pytest.raises(ValueError, match="is a regression model"):
        lprff.predict_classes(model, rows)


def test_a_model_prints_a_summary_not_its_weights():
    model = lprff.read_model(FILES / "model.lprff")
    meta = model.metadata
    text = repr(model)
    assert str(model) == text and "\n" not in text and "array" not in text, text
    for part in ("task=regression", "classes=1", f"m={meta['lprff.features']}",
                 f"bits={meta['lprff.bits']}", "quantizer=stochastic",
                 f"kernel={meta['lprff.kernel']} sigma={meta['lprff.sigma']}",
                 f"projection={meta['lprff.projection']}", f"l2={meta['lprff.model.l2']}"):
        assert part in text, (part, text)
    standardized = any(k.startswith("lprff.standardize.") for k in meta)
    assert f"standardization={'yes' if standardized else 'no'}" in text, text
    plain = {k: v for k, v in meta.items() if not k.startswith("lprff.standardize.")}
    for extra, said in (({}, "no"), ({"lprff.standardize.mean": "0.5"}, "yes")):
        other = lprff.Model(model.weights, model.bias, "regression", 1, {**plain, **extra})
        assert f"standardization={said}" in repr(other), repr(other)
    matern = {**plain, "lprff.kernel": "matern", "lprff.nu": "1.5", "lprff.length_scale": "2.0"}
    assert "kernel=matern nu=1.5 length_scale=2.0" in repr(
        lprff.Model(model.weights, model.bias, "regression", 1, matern))


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


@pytest.mark.parametrize("path", [p for p in FEATURE_FILES if p.stem.endswith("stream")],
                         ids=lambda p: p.stem)
def test_a_binary_stream_reads_like_its_file(path):
    """A pipe (here an open file, read front to back, never mapped) gives the path's values."""
    values, labels, meta = lprff.read_features(path)
    with open(path, "rb") as stream:
        piped, piped_labels, piped_meta = lprff.read_features(stream)
    assert np.array_equal(piped, values) and np.array_equal(piped_labels, labels)
    assert piped_meta == meta
    with open(path, "rb") as stream:
        batches = list(lprff.iter_batches(stream, 5))
    assert np.array_equal(np.concatenate([v for v, _ in batches]), values)
    with open(FILES / "model.lprff", "rb") as not_a_stream:
        with pytest.raises(lprff.FormatError, match="not an Arrow IPC stream"):
            lprff.read_features(not_a_stream)
