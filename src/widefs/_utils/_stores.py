"""Stores read as data: every array's type and codecs are checked before a value is read.

One whitelist of value types for every container widefs reads (zarr stores, dask arrays
reading them: :mod:`widefs._utils._dask_stores`, HDF5/AnnData files): :func:`value_kind` says whether a data type holds numbers
(booleans, integers, floats), text, or neither (refused: objects, structures, dates).

A zarr array names its data type and the codecs that decode its chunks in its metadata
(``.zarray`` for version 2, ``zarr.json`` for version 3). Some of those codecs run code while
decoding (numcodecs' ``Pickle`` unpickles each chunk; ``MsgPack`` and ``JSON`` build arbitrary
objects), and an object array needs one of them. widefs reads an array only when
:func:`check_array_metadata` accepts its metadata: numbers (booleans, integers, floats) and
text (fixed-width strings or bytes of at most :data:`MAX_TEXT_WIDTH` characters, or
variable-length UTF-8 strings through the ``vlen-utf8`` codec), decoded by codecs of a short
list that only copy, reorder, compress or checksum bytes. The check is the same with every
zarr version, because it reads the metadata as JSON before zarr does, and again on the array
zarr opened (which consolidated metadata could have changed).

A store that is damaged (unreadable metadata, a truncated chunk) is one
:class:`~widefs.exceptions.DataError` naming the store and the problem, never a traceback.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from widefs.exceptions import DataError

__all__ = [
    "MAX_TEXT_WIDTH",
    "NUMBER_KINDS",
    "StoreArray",
    "check_array_metadata",
    "check_zarr_array",
    "is_zarr_array",
    "open_store",
    "value_kind",
]

#: Characters of one label or feature name read from a store (longer text is refused).
MAX_TEXT_WIDTH = 1024
#: numpy kinds of the values read as numbers from any container: bool, (un)signed int, float.
NUMBER_KINDS = "biuf"
_TEXT_KINDS = "US"  # fixed-width text (numpy's str and bytes)
# Metadata documents larger than this are refused before they are parsed.
_MAX_METADATA_BYTES = 2**20
# Bytes of one decoded chunk: zarr allocates a whole chunk to read any value of it.
_MAX_CHUNK_BYTES = 2**30
_METADATA_FILES = ("zarr.json", ".zarray")

# Codecs that only copy, reorder, compress, checksum or rescale bytes and numbers (version 2
# ids, version 3 names and numcodecs' version 3 wrappers, "numcodecs." stripped). Everything
# else (pickle, msgpack2, json2, vlen-array, categorize, unknown names) is refused.
_SAFE_CODECS = frozenset(
    {
        "bytes", "endian", "transpose", "crc32c", "sharding_indexed",
        "blosc", "gzip", "zlib", "zstd", "lz4", "bz2", "lzma",
        "crc32", "adler32", "fletcher32", "jenkins_lookup3",
        "delta", "shuffle", "bitround", "quantize", "fixedscaleoffset", "packbits",
    }
)  # fmt: skip
# Codecs of variable-length text, allowed on text arrays only.
_TEXT_CODECS = frozenset({"vlen-utf8", "vlen-bytes"})
# Version 3 data types read as numbers.
_V3_NUMERIC = frozenset(
    {"bool", "float16", "float32", "float64"}
    | {f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)}
)
# Version 3 data types of fixed-width text: characters per value = length_bytes / divisor.
_V3_FIXED_TEXT = {"fixed_length_utf32": 4, "null_terminated_bytes": 1, "fixed_length_ascii": 1}
_V3_VLEN_TEXT = frozenset({"string", "variable_length_utf8", "bytes", "variable_length_bytes"})


def _codec_name(codec) -> str:
    if codec is None:
        return ""
    if not isinstance(codec, dict):
        raise ValueError(f"a codec is {type(codec).__name__}, not an object")
    name = codec.get("name", codec.get("id"))
    if not isinstance(name, str):
        raise ValueError("a codec has no name")
    return name.removeprefix("numcodecs.")


def _codecs(meta: dict) -> list[str]:
    """Names of every codec of the metadata, those nested in a sharding codec included."""
    if meta.get("zarr_format") == 3:
        found = list(meta.get("codecs") or [])
    else:
        found = [*(meta.get("filters") or []), meta.get("compressor")]
    names = []
    while found:
        codec = found.pop()
        names.append(_codec_name(codec))
        config = codec.get("configuration") if isinstance(codec, dict) else None
        if isinstance(config, dict):
            found += list(config.get("codecs") or []) + list(config.get("index_codecs") or [])
    return [n for n in names if n]


def value_kind(dtype) -> str | None:
    """What values of ``dtype`` are, for every container widefs reads: the one whitelist.

    Parameters
    ----------
    dtype : numpy dtype or str
        The type an array declares (zarr metadata, an HDF5 dataset, a dask array).

    Returns
    -------
    kind : {"numeric", "text"} or None
        "numeric" for booleans, integers and floats (:data:`NUMBER_KINDS`); "text" for
        fixed-width strings or bytes, and for HDF5's variable-length strings (an object type
        that h5py marks as ``vlen`` ``str`` or ``bytes``); None for everything else: objects,
        structures, dates, complex numbers, references. A zarr object array is text only
        through a text codec (:func:`check_array_metadata` decides).

    See Also
    --------
    check_array_metadata : The whole check of a zarr array.

    Examples
    --------
    >>> value_kind("<f8"), value_kind("|S3"), value_kind("O"), value_kind("<M8[ns]")
    ('numeric', 'text', None, None)
    """
    dt = np.dtype(dtype)
    if dt.kind in NUMBER_KINDS:
        return "numeric"
    if dt.kind in _TEXT_KINDS:
        return "text"
    if dt.kind == "O" and (dt.metadata or {}).get("vlen") in (str, bytes):
        return "text"  # (h5py's variable-length strings; nothing else is read as objects)
    return None


def _v2_type(dtype, codecs: list[str]) -> tuple[str, int, int]:
    """(kind, characters per value, bytes per value) of a version 2 ``dtype`` string."""
    if not isinstance(dtype, str):
        raise ValueError(f"data type {dtype!r} is not a plain type")
    dt = np.dtype(dtype)
    kind = value_kind(dt)
    if kind == "numeric":
        return "numeric", 0, dt.itemsize
    if kind == "text":
        return "text", dt.itemsize // (4 if dt.kind == "U" else 1), dt.itemsize
    if dt.kind == "O" and any(c in _TEXT_CODECS for c in codecs):
        return "text", 0, 8
    raise ValueError(f"data type {dtype!r} is not numbers or text")


def _v3_type(data_type) -> tuple[str, int, int]:
    name = data_type.get("name") if isinstance(data_type, dict) else data_type
    if name in _V3_NUMERIC:
        return "numeric", 0, np.dtype(name).itemsize
    if name in _V3_VLEN_TEXT:
        return "text", 0, 8
    if name in _V3_FIXED_TEXT:
        config = data_type.get("configuration") if isinstance(data_type, dict) else None
        length = config.get("length_bytes") if isinstance(config, dict) else None
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise ValueError(f"data type {name!r} has no valid length_bytes")
        return "text", length // _V3_FIXED_TEXT[name], length
    raise ValueError(f"data type {name!r} is not numbers or text")


def _chunk_bytes(meta: dict, itemsize: int) -> int:
    """Bytes of the smallest chunk zarr decodes (0 when the metadata does not say)."""
    shapes = [meta.get("chunks")]
    grid = meta.get("chunk_grid")
    if isinstance(grid, dict) and isinstance(grid.get("configuration"), dict):
        shapes.append(grid["configuration"].get("chunk_shape"))
    for codec in meta.get("codecs") or ():  # the inner chunks of a shard
        if isinstance(codec, dict) and isinstance(codec.get("configuration"), dict):
            shapes.append(codec["configuration"].get("chunk_shape"))
    sizes = []
    for shape in (s for s in shapes if s is not None):
        if not isinstance(shape, list | tuple) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape
        ):
            raise ValueError(f"chunk shape {shape!r} is not a list of positive integers")
        sizes.append(math.prod(shape))
    return min(sizes, default=0) * itemsize


def check_array_metadata(meta, where: str) -> str:
    """Kind of the zarr array described by ``meta`` ("numeric" or "text"), or one DataError.

    Parameters
    ----------
    meta : dict
        The array's metadata as JSON: a ``.zarray`` document (``"zarr_format": 2``, with
        ``dtype``, ``filters`` and ``compressor``) or a ``zarr.json`` one (``"zarr_format":
        3``, with ``data_type`` and ``codecs``).
    where : str
        Names the array in the message (for instance ``"the zarr store s.zarr: array 'X'"``).

    Returns
    -------
    kind : {"numeric", "text"}

    Raises
    ------
    DataError
        A data type other than numbers and text (object arrays, structures, dates), text
        wider than :data:`MAX_TEXT_WIDTH`, chunks of more than 1 GiB, or a codec that is not
        known to only decode bytes (pickle among them), in one line naming ``where``.

    See Also
    --------
    check_zarr_array : The same check on an opened zarr array.

    Examples
    --------
    >>> check_array_metadata({"zarr_format": 3, "data_type": "bool", "codecs": []}, "x")
    'numeric'
    >>> check_array_metadata(
    ...     {"zarr_format": 2, "dtype": "|O", "filters": [{"id": "pickle"}]}, "array 'y'"
    ... )  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    widefs.exceptions.DataError: array 'y': refused codec 'pickle' (widefs reads numbers ...
    """
    try:
        if not isinstance(meta, dict) or meta.get("zarr_format") not in (2, 3):
            raise ValueError("metadata is not that of a zarr version 2 or 3 array")
        codecs = _codecs(meta)
        bad = sorted({c for c in codecs if c not in _SAFE_CODECS | _TEXT_CODECS})
        if bad:
            raise ValueError(
                f"refused codec {bad[0]!r} (widefs reads numbers and text through codecs that "
                "only decode bytes; pickle, msgpack and the like would run the store's content)"
            )
        if meta["zarr_format"] == 3:
            kind, width, itemsize = _v3_type(meta.get("data_type"))
        else:
            kind, width, itemsize = _v2_type(meta.get("dtype"), codecs)
        if kind == "numeric" and any(c in _TEXT_CODECS for c in codecs):
            raise ValueError("a text codec on an array of numbers")
        if width > MAX_TEXT_WIDTH:
            raise ValueError(f"text of {width} characters per value (at most {MAX_TEXT_WIDTH})")
        chunk = _chunk_bytes(meta, max(itemsize, 1))
        if chunk > _MAX_CHUNK_BYTES:
            raise ValueError(f"chunks of {chunk} bytes (at most {_MAX_CHUNK_BYTES})")
    except (ValueError, TypeError, AttributeError) as exc:
        raise DataError(f"{where}: {_one_line(exc)}") from None
    return kind


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _object_metadata(array) -> dict:
    """An opened zarr array's type and codecs as version 2 JSON (any zarr, either format).

    Built from numpy's data type and each codec's own JSON, not from zarr 3's ``to_dict``
    (which warns about text types whose version 3 specification is unfinished).
    """
    dt = np.dtype(array.dtype)
    meta = getattr(array, "metadata", None)
    if getattr(meta, "zarr_format", 2) == 3:
        codecs = [c.to_dict() for c in meta.codecs]
    else:  # zarr 2's array, or zarr 3's version 2 metadata: numcodecs codecs
        source = meta if hasattr(meta, "filters") else array
        compressor = getattr(source, "compressor", None)
        codecs = [f.get_config() for f in getattr(source, "filters", None) or ()]
        codecs += [] if compressor is None else [compressor.get_config()]
    return {
        "zarr_format": 2,
        "dtype": "|O" if dt.kind in "OT" else dt.str,  # (T: numpy's variable-width strings)
        "filters": codecs,
        "compressor": None,
        "chunks": [int(n) for n in array.chunks],
    }


def is_zarr_array(X) -> bool:
    """True for an array object of the zarr package (any version)."""
    return type(X).__module__.split(".")[0] == "zarr" and hasattr(type(X), "oindex")


def check_zarr_array(array, where: str | None = None) -> str:
    """Kind of an opened zarr array ("numeric" or "text"), checked before a value is read.

    Parameters
    ----------
    array : zarr array
        Opened with zarr 2 or 3 (only its metadata is read).
    where : str, optional
        Names the array in an error (default: "the zarr array" and its path).

    Returns
    -------
    kind : {"numeric", "text"}

    Raises
    ------
    DataError
        As :func:`check_array_metadata`, or when the type zarr decodes to is neither
        numbers nor text.

    See Also
    --------
    check_array_metadata : The check itself.

    Examples
    --------
    >>> import zarr
    >>> check_zarr_array(zarr.zeros((2, 3)))
    'numeric'
    """
    where = where or f"the zarr array {getattr(array, 'path', '') or ''!r}"
    try:
        meta = _object_metadata(array)
    except Exception as exc:  # any version-specific failure is one line
        raise DataError(f"{where}: unreadable metadata ({_one_line(exc)})") from None
    kind = check_array_metadata(meta, where)
    decoded = np.dtype(array.dtype).kind
    if decoded not in (NUMBER_KINDS if kind == "numeric" else _TEXT_KINDS + "OT"):
        raise DataError(f"{where}: decodes to {array.dtype}, not {kind}")
    return kind


class StoreArray:
    """An array of a store, checked: values read through it are numbers or bounded text.

    Reading (``a[key]``, ``a.oindex[key]``) turns a damaged chunk into one
    :class:`~widefs.exceptions.DataError`; text comes back as an object array of ``str``
    (one value as a ``str``).
    Other attributes (``shape``, ``chunks``, ``dtype``) are the zarr array's.
    """

    def __init__(self, array, where: str, kind: str | None = None):
        self.kind = check_zarr_array(array, where)
        if kind is not None and self.kind != kind:
            raise DataError(f"{where}: holds {self.kind} values, not {kind}")
        self.array = array
        self.where = where
        self.oindex = _OIndex(self)

    def __getattr__(self, name):
        if name in ("array", "where", "kind"):  # not set yet: no recursion through __getattr__
            raise AttributeError(name)
        return getattr(self.array, name)

    def __len__(self) -> int:
        return int(self.array.shape[0])

    def __getitem__(self, key):
        return self._read(lambda: self.array[key])

    def _read(self, get):
        try:
            values = np.asarray(get())
        except Exception as exc:  # zarr and its codecs raise many types
            raise DataError(f"{self.where}: cannot read its values ({_one_line(exc)})") from None
        out = values if self.kind == "numeric" else _text(values, self.where)
        return out[()] if out.ndim == 0 else out  # one value: the scalar, as zarr gives it


class _OIndex:
    def __init__(self, owner: StoreArray):
        self.owner = owner

    def __getitem__(self, key):
        return self.owner._read(lambda: self.owner.array.oindex[key])


def _text(values: np.ndarray, where: str) -> np.ndarray:
    """Text values as an object array of ``str``, each at most MAX_TEXT_WIDTH characters."""
    flat = values.reshape(-1)
    out = np.empty(flat.shape, dtype=object)
    for i, v in enumerate(flat.tolist()):
        if isinstance(v, np.ndarray) and v.ndim == 0:  # (zarr 3.0 wraps one value read alone)
            v = v.item()
        if isinstance(v, bytes):
            v = v.decode("utf-8", errors="replace")
        if not isinstance(v, str):
            raise DataError(f"{where}: holds a {type(v).__name__}, not text")
        if len(v) > MAX_TEXT_WIDTH:
            raise DataError(f"{where}: a value of {len(v)} characters (at most {MAX_TEXT_WIDTH})")
        out[i] = v
    return out.reshape(values.shape)


def _array_name(name: str, store: Path) -> str:
    parts = name.split("/")
    if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise DataError(f"the zarr store {store}: {name!r} is not an array name")
    return name


def _read_metadata(file: Path, where: str) -> dict:
    try:
        if file.stat().st_size > _MAX_METADATA_BYTES:
            raise ValueError(f"{file.name} is larger than {_MAX_METADATA_BYTES} bytes")
        return json.loads(file.read_bytes())
    except (OSError, ValueError) as exc:
        raise DataError(f"{where}: unreadable {file.name} ({_one_line(exc)})") from None


class StoreGroup:
    """A zarr group opened read-only by :func:`open_store`: its arrays come out checked."""

    def __init__(self, group, path: Path):
        self.group = group
        self.path = path

    def __contains__(self, name: str) -> bool:
        name = _array_name(name, self.path)
        return any((self.path / name / m).is_file() for m in _METADATA_FILES)

    def array(self, name: str, kind: str | None = None) -> StoreArray:
        """The array ``name`` (of ``kind`` "numeric" or "text" if given), its metadata checked
        as JSON first, then as zarr opened it."""
        where = f"the zarr store {self.path}: array {name!r}"
        folder = self.path / _array_name(name, self.path)
        files = [folder / m for m in _METADATA_FILES if (folder / m).is_file()]
        if not files:
            raise DataError(f"the zarr store {self.path} has no array {name!r}")
        for file in files:
            meta = _read_metadata(file, where)
            if not isinstance(meta, dict):
                raise DataError(f"{where}: {file.name} is not a JSON object")
            if file.name == "zarr.json" and meta.get("node_type") != "array":
                raise DataError(f"{where}: is a {meta.get('node_type')!r}, not an array")
            # Each file is read as the version its name says, whatever it claims inside.
            meta = {**meta, "zarr_format": 3 if file.name == "zarr.json" else 2}
            check_array_metadata(meta, where)
        try:
            array = self.group[name]
        except Exception as exc:  # zarr raises many types for damaged metadata
            raise DataError(f"{where}: cannot open it ({_one_line(exc)})") from None
        if not hasattr(array, "oindex"):
            raise DataError(f"{where}: is a group, not an array")
        return StoreArray(array, where, kind)


def open_store(path) -> StoreGroup:
    """Open the zarr group at ``path`` read-only, for arrays read as data only.

    Parameters
    ----------
    path : str or Path
        A directory holding a zarr group (version 2 or 3 metadata).

    Returns
    -------
    group : StoreGroup
        ``name in group`` and ``group.array(name)``: a :class:`StoreArray` whose metadata
        passed :func:`check_array_metadata`.

    Raises
    ------
    DataError
        zarr is not installed, or the directory is not a readable zarr group.

    See Also
    --------
    check_array_metadata : What an array must be to be read.

    Examples
    --------
    >>> open_store("no/such/store.zarr")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    widefs.exceptions.DataError: the zarr store no/such/store.zarr: not a directory holding ...
    """
    path = Path(path)
    if not (path.is_dir() and any((path / m).is_file() for m in ("zarr.json", ".zgroup"))):
        raise DataError(f"the zarr store {path}: not a directory holding a zarr group")
    try:
        import zarr
    except ImportError:
        raise DataError(
            f"reading the zarr store {path} needs zarr: pip install 'widefs[dask]'"
        ) from None
    # Consolidated metadata would let a group-level copy stand in for an array's own
    # metadata: zarr 3 is told not to use it (zarr 2 uses it only through open_consolidated).
    options = {"use_consolidated": False} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    try:
        group = zarr.open_group(str(path), mode="r", **options)
    except Exception as exc:  # zarr raises many types for a damaged store
        raise DataError(f"the zarr store {path}: cannot open it ({_one_line(exc)})") from None
    return StoreGroup(group, path)
