"""Where checkpoint files live: a local folder (or shared mount), S3, or the process's memory.

One small interface, :class:`Store`, over relative ``/``-separated keys under a root:
``write`` (atomic: readers see the old or the new file), ``read``, ``list`` (names directly
under a folder), ``delete`` (a folder and everything below it), and ``put_dir`` / ``get_dir``
(a local folder — a state backend's snapshot — copied up, and back down for a restore).

- :class:`LocalStore`: ``'execution.checkpointing.dir'`` is a path. Files are written as a temp
  file, fsynced, renamed, and the folder fsynced. Backends snapshot straight into it
  (:attr:`Store.local_root`), so RocksDB's hard-linked SST files stay shared between checkpoints.
- :class:`S3Store`: ``s3://bucket/prefix`` through pyarrow's ``S3FileSystem``; a PUT is atomic
  on S3, so ``write`` is one PUT. Configured by Flink's keys ``s3.endpoint``, ``s3.access-key``,
  ``s3.secret-key``, ``s3.path.style.access`` (and ``s3.region``); without keys, pyarrow's
  default credential chain (environment, profile, instance role). Snapshots are staged in a
  local folder and uploaded file by file (RocksDB's SST files in full at every checkpoint).
- :class:`MemoryStore`: ``'execution.checkpointing.storage'`` = ``jobmanager`` — snapshots
  kept in this process (Flink's JobManagerCheckpointStorage without HA): a restart inside the
  process restores them, a new process cannot.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping

from streamsql.core.errors import ConfigError, ExecutionError


def atomic_write(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a part.

    Temp file, fsync, rename, fsync of the folder.
    """
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Store:
    """Checkpoint files under one root, by relative key (see module docstring).

    Attributes:
        root: the root as the user wrote it (a path, ``s3://bucket/prefix``, ``memory:...``).
        local_root: a local folder backends may write into directly, or None (staged copies).
    """

    root: str
    local_root: str | None = None

    def uri(self, key: str) -> str:
        """The location of ``key`` as shown to users (a path, or ``s3://...``)."""
        return f"{self.root.rstrip('/')}/{key}" if key else self.root

    def write(self, key: str, data: bytes) -> None:
        """Write file ``key`` atomically (its folder is created)."""
        raise NotImplementedError

    def read(self, key: str) -> bytes | None:
        """The contents of file ``key``, or None when absent."""
        raise NotImplementedError

    def list(self, key: str) -> list[str]:
        """Names directly under folder ``key`` (files and folders; [] when absent)."""
        raise NotImplementedError

    def delete(self, key: str) -> None:
        """Delete file or folder ``key`` with everything below it (absent: nothing)."""
        raise NotImplementedError

    def put_dir(self, local: str, key: str) -> None:
        """Copy the files of local folder ``local`` (recursively) to folder ``key``."""
        for dirpath, _dirs, files in os.walk(local):
            rel = os.path.relpath(dirpath, local)
            for name in files:
                sub = name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}"
                with open(os.path.join(dirpath, name), "rb") as f:
                    self.write(f"{key}/{sub}", f.read())

    def get_dir(self, key: str, local: str) -> bool:
        """Copy folder ``key`` into local folder ``local`` (created); False when ``key`` is absent."""
        names = self.list(key)
        if not names:
            return False
        os.makedirs(local, exist_ok=True)
        for name in names:
            data = self.read(f"{key}/{name}")
            if data is None:  # a folder
                self.get_dir(f"{key}/{name}", os.path.join(local, name))
                continue
            with open(os.path.join(local, name), "wb") as f:
                f.write(data)
        return True


class LocalStore(Store):
    """Files in a local folder or shared mount (see module docstring)."""

    def __init__(self, root: str):
        self.root = root
        self.local_root = root

    def _path(self, key: str) -> str:
        return os.path.join(self.root, *key.split("/")) if key else self.root

    def uri(self, key: str) -> str:
        """The path of ``key``."""
        return self._path(key)

    def write(self, key: str, data: bytes) -> None:
        """Temp file, fsync, rename, fsync of the folder."""
        path = self._path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write(path, data)

    def read(self, key: str) -> bytes | None:
        """The file's bytes, or None (absent, or a folder)."""
        try:
            with open(self._path(key), "rb") as f:
                return f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def list(self, key: str) -> list[str]:
        """``os.listdir`` of the folder ([] when absent)."""
        try:
            return os.listdir(self._path(key))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def delete(self, key: str) -> None:
        """``shutil.rmtree`` (or remove a file)."""
        path = self._path(key)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.remove(path)


class S3Store(Store):
    """Files under ``s3://bucket/prefix`` through pyarrow's ``S3FileSystem`` (module docstring).

    Args:
        root: ``s3://bucket[/prefix]``.
        options: the job's settings; the ``s3.*`` keys are read.

    Raises:
        ConfigError: for a URI without a bucket.
    """

    def __init__(self, root: str, options: Mapping[str, str]):
        from pyarrow import fs

        self.root = root.rstrip("/")
        self._base = self.root[len("s3://"):]
        if not self._base or self._base.startswith("/"):
            msg = f"'execution.checkpointing.dir' = '{root}' names no bucket; use 's3://bucket/prefix'"
            raise ConfigError(msg)
        self._fs = fs.S3FileSystem(**s3_arguments(options))
        self._fs_mod = fs

    def _key(self, key: str) -> str:
        return f"{self._base}/{key}" if key else self._base

    def write(self, key: str, data: bytes) -> None:
        """One PUT (atomic on S3)."""
        with self._guard("write", key):
            with self._fs.open_output_stream(self._key(key)) as f:
                f.write(data)

    def read(self, key: str) -> bytes | None:
        """One GET, or None when absent."""
        with self._guard("read", key):
            try:
                with self._fs.open_input_stream(self._key(key)) as f:
                    return f.read()
            except FileNotFoundError:
                return None
            except OSError as e:
                if "directory" in str(e).lower():  # the key is a prefix
                    return None
                raise

    def list(self, key: str) -> list[str]:
        """The names one level below the prefix ([] when absent)."""
        selector = self._fs_mod.FileSelector(self._key(key), recursive=False, allow_not_found=True)
        with self._guard("list", key):
            infos = self._fs.get_file_info(selector)
        return sorted({info.base_name for info in infos})

    def delete(self, key: str) -> None:
        """Delete every object below the prefix, or the object."""
        path = self._key(key)
        with self._guard("delete", key):
            info = self._fs.get_file_info(path)
            if info.type == self._fs_mod.FileType.Directory:
                self._fs.delete_dir(path)
            elif info.type == self._fs_mod.FileType.File:
                self._fs.delete_file(path)

    @contextlib.contextmanager
    def _guard(self, action: str, key: str) -> Iterator[None]:
        """Turn pyarrow's OSErrors into an ExecutionError naming the file (never the credentials)."""
        try:
            yield
        except FileNotFoundError:
            raise
        except OSError as e:
            msg = f"Cannot {action} checkpoint file {self.uri(key)}: {e}"
            raise ExecutionError(msg) from e


def s3_arguments(options: Mapping[str, str]) -> dict:
    """``S3FileSystem`` keyword arguments from Flink's ``s3.*`` keys.

    ``s3.endpoint`` (``http://host:port`` or ``host:port``; the scheme picks http or https),
    ``s3.access-key`` and ``s3.secret-key`` (both or neither), ``s3.path.style.access``
    (``true``: path-style URLs, what S3-compatible servers want), ``s3.region``.

    Raises:
        ConfigError: for only one of the two keys.
    """
    args: dict = {}
    endpoint = (options.get("s3.endpoint") or "").strip()
    if endpoint:
        scheme, sep, rest = endpoint.partition("://")
        args["endpoint_override"] = rest if sep else endpoint
        args["scheme"] = scheme if sep else "https"
    access, secret = options.get("s3.access-key"), options.get("s3.secret-key")
    if bool(access) != bool(secret):
        msg = "Set both 's3.access-key' and 's3.secret-key', or neither (the default credential chain)"
        raise ConfigError(msg)
    if access:
        args["access_key"], args["secret_key"] = access, secret
    path_style = (options.get("s3.path.style.access") or "").strip().lower()
    if path_style:
        args["force_virtual_addressing"] = path_style != "true"
    args["region"] = options.get("s3.region") or "us-east-1"
    return args


class MemoryStore(Store):
    """Files in this process's memory, shared by every store of one root (see module docstring).

    The registry of roots is the JobManager's memory: it lives as long as the process, so a
    job restarted in the process (``'restart-strategy.type'``) finds its snapshots again.
    """

    _roots: dict[str, dict[str, bytes]] = {}
    _lock = threading.Lock()

    def __init__(self, root: str):
        self.root = f"memory:{root}"
        with self._lock:
            self._files = self._roots.setdefault(root, {})

    def write(self, key: str, data: bytes) -> None:
        """Keep ``data`` under ``key``."""
        with self._lock:
            self._files[key] = bytes(data)

    def read(self, key: str) -> bytes | None:
        """The bytes under ``key``, or None."""
        with self._lock:
            return self._files.get(key)

    def list(self, key: str) -> list[str]:
        """Names one level below ``key``."""
        prefix = f"{key}/" if key else ""
        with self._lock:
            return sorted({k[len(prefix):].split("/", 1)[0] for k in self._files if k.startswith(prefix)})

    def delete(self, key: str) -> None:
        """Drop ``key`` and everything below it."""
        with self._lock:
            for k in [k for k in self._files if k == key or k.startswith(f"{key}/")]:
                del self._files[k]


def open_store(root: str, options: Mapping[str, str]) -> Store:
    """The store of ``'execution.checkpointing.dir'`` = ``root`` (a path or ``s3://...``).

    Raises:
        ConfigError: for another URI scheme, or bad ``s3.*`` settings.
    """
    if root.startswith("s3://"):
        return S3Store(root, options)
    scheme = root.partition("://")[0]
    if "://" in root and scheme != "file":
        msg = (f"'execution.checkpointing.dir' = '{root}': '{scheme}://' is not supported; "
               "use a local or mounted path, or s3://bucket/prefix")
        raise ConfigError(msg)
    return LocalStore(root.removeprefix("file://"))


def local_lock_dir(uri: str) -> str:
    """A local folder for the writer lock of a remote checkpoint folder ``uri`` (one per machine)."""
    digest = hashlib.sha256(uri.encode()).hexdigest()[:20]
    path = os.path.join(tempfile.gettempdir(), "streamsql-locks", digest)
    os.makedirs(path, exist_ok=True)
    return path
