"""Writing outputs safely: atomic files and report directories that never touch what is not ours.

Two primitives serve every file the CLI writes, so that a crash or a full disk never
leaves a half-written file and nothing the tool did not create is overwritten:

* :func:`write_text` / :func:`write_bytes` — one file, written to a temporary sibling
  (``.NAME.dps-tmp-XXXXXXXX``), flushed and ``fsync``-ed, then moved over the target with
  :func:`os.replace` (atomic on POSIX and Windows).  A path the user names explicitly
  (``--json FILE``) is the user's order to write that file, so an existing *regular file* there is
  replaced; a directory or other non-regular file in its place is refused.
* :func:`write_report_dir` — a report directory (``index.html`` and ``figures/`` …).  The whole
  report is built in a staging directory first; only when it is complete are its top-level
  entries moved into place.  Ownership: dps_verify writes a marker file :data:`MARKER`
  (``.dps-verify-report``) listing every path it wrote.  An existing entry of the target
  directory is replaced only if the marker lists it (and, for a directory, every file inside it);
  anything else in the target directory is left alone.  If an entry we would write is already
  there and is not ours, nothing is written: :class:`~dps_verify.core.errors.UsageError` (exit 2)
  with one line naming it.

Interrupts (an exception or Ctrl-C while the report is being built) leave the previous report
untouched and remove the staging directory.  The final swap moves at most a few entries with
:func:`os.replace`; if it fails midway the previous entries are moved back.

Permissions follow the umask: files are created with mode ``0o666 & ~umask`` and directories
with ``0o777 & ~umask`` (never the 0600/0700 of :mod:`tempfile`).

Failures to write (missing parent directory, read-only directory, a file in the way) become one
:class:`UsageError` line naming the path; the CLI maps it to exit 2.

Single report files (``paper --json/--markdown``, ``audit --json``) carry a generator tag
(:data:`GENERATOR`: a ``"generator"`` key first in JSON, a comment on the first line of
Markdown).  :func:`check_output_file` refuses, before any work starts, an existing file without
that tag (one that dps-verify did not write) unless ``--force`` is given, and a path that could
not be written (missing or read-only directory, a directory in the way);
:func:`write_output_file` checks again and writes atomically.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from dps_verify.core.errors import UsageError

#: Name of the ownership marker written into every report directory dps_verify creates or fills.
MARKER = ".dps-verify-report"
_TMP_TAG = ".dps-tmp-"


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _fsync_dir(path: Path) -> None:
    """Persist a rename in ``path`` (best effort: not every platform can open a directory)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_dir(parent: Path, stem: str) -> Path:
    """Create a fresh directory ``parent/.stem.dps-tmp-XXXXXXXX`` whose mode follows the umask."""
    for _ in range(100):
        cand = parent / f".{stem}{_TMP_TAG}{secrets.token_hex(4)}"
        try:
            os.mkdir(cand, 0o777)
        except FileExistsError:
            continue
        return cand
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(parent))  # pragma: no cover


def write_bytes(path: str | os.PathLike, data: bytes, *, what: str = "output") -> Path:
    """Write ``data`` to ``path`` atomically (temporary sibling, fsync, :func:`os.replace`).

    Returns the absolute path written.  Raises :class:`UsageError` (one line) if the parent
    directory is missing or not writable or if a non-regular file (a directory …) is in the way;
    in every failure the previous content of ``path`` is untouched and no temporary file remains.
    """
    target = Path(path).absolute()
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {what} {target}: directory {parent} does not exist")
    if target.exists() and not target.is_file():
        raise UsageError(f"refusing to write {what} {target}: it exists and is not a regular file")
    tmp = None
    try:
        for _ in range(100):
            cand = parent / f".{target.name}{_TMP_TAG}{secrets.token_hex(4)}"
            try:
                fd = os.open(cand, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            except FileExistsError:
                continue
            tmp = cand
            break
        else:  # pragma: no cover
            raise FileExistsError(errno.EEXIST, "no free temporary name", str(parent))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(parent)
    except OSError as exc:
        raise UsageError(f"cannot write {what} {target}: {_why(exc)}") from exc
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
    return target


def write_text(path: str | os.PathLike, text: str, *, what: str = "output") -> Path:
    """:func:`write_bytes` for UTF-8 text."""
    return write_bytes(path, text.encode("utf-8"), what=what)


# --------------------------------------------------------------------------- single report files

#: The tag every single report file dps_verify writes carries near its start.
GENERATOR = "dps-verify"
_TAGGED = re.compile(rb'"generator"\s*:\s*"dps-verify|<!-- generator: dps-verify')
_HEAD = 4096


def generator_json(data: dict) -> dict:
    """``data`` with the generator tag as its first key (for a JSON report file)."""
    return {"generator": GENERATOR, **{k: v for k, v in data.items() if k != "generator"}}


def generator_markdown(text: str) -> str:
    """``text`` with the generator tag as an HTML comment on its first line (Markdown)."""
    return f"<!-- generator: {GENERATOR} -->\n{text}"


def written_by_us(path: str | os.PathLike) -> bool:
    """Whether the regular file ``path`` carries the generator tag near its start."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return False
    return bool(_TAGGED.search(head))


def check_output_file(path: str | os.PathLike, *, option: str, force: bool = False) -> Path:
    """Refuse early (:class:`UsageError`, exit 2) a report file that could not be written or
    would overwrite a file dps-verify did not write (unless ``force``).  ``option`` names the
    command-line option in the message (``--json``).  Returns the absolute path; writes nothing."""
    target = Path(path).absolute()
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"{option}: cannot write {target}: directory {parent} does not exist")
    if target.exists() or target.is_symlink():
        if not target.is_file():
            raise UsageError(f"{option}: refusing to write {target}: it exists and is not a regular file")
        if not force and not written_by_us(target):
            raise UsageError(f"{option}: refusing to overwrite {target}: it exists and was not written by "
                             "dps-verify (use --force to replace it, or choose another name)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: cannot write {target}: directory {parent} is not writable")
    return target


def write_output_file(path: str | os.PathLike, text: str, *, option: str, force: bool = False,
                      what: str = "report") -> Path:
    """:func:`check_output_file` again (the file may have appeared meanwhile), then
    :func:`write_text` (atomic).  ``text`` should carry the generator tag
    (:func:`generator_json`, :func:`generator_markdown`) so a later run may replace it."""
    check_output_file(path, option=option, force=force)
    return write_text(path, text, what=what)


# --------------------------------------------------------------------------- report directories


def _read_marker(outdir: Path) -> set[str] | None:
    """Paths (relative, ``/``-separated) listed in ``outdir``'s marker, or None if there is none."""
    m = outdir / MARKER
    if not m.is_file():
        return None
    try:
        data = json.loads(m.read_text(encoding="utf-8"))
        return {str(p) for p in data["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None  # an unreadable marker proves nothing: treat the directory as not ours


def _files_under(root: Path, rel: str) -> list[str]:
    """``rel`` and, if it is a directory, every path below it (relative, ``/``-separated)."""
    p = root / rel
    if p.is_dir() and not p.is_symlink():
        return [rel, *sorted(f"{rel}/{q.relative_to(p).as_posix()}" for q in p.rglob("*"))]
    return [rel]


def _owned(outdir: Path, name: str, listed: set[str] | None) -> bool:
    """Is the existing entry ``outdir/name`` something dps_verify wrote (per the marker)?"""
    if listed is None:
        return False
    return all(f in listed for f in _files_under(outdir, name))


def check_report_dir(outdir: str | os.PathLike, names: Iterable[str], *, what: str = "report") -> Path:
    """Refuse early (``UsageError``) if writing entries ``names`` into ``outdir`` would overwrite
    something dps_verify does not own, or if ``outdir`` cannot be a report directory.  Returns the
    absolute ``outdir``; writes nothing."""
    out = Path(outdir).absolute()
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise UsageError(f"refusing to write {what} into {out}: it exists and is not a directory")
        listed = _read_marker(out)
        if listed is None and os.path.lexists(out / MARKER):
            raise UsageError(f"refusing to write {what} into {out}: its {MARKER} is not one dps-verify wrote")
        for name in names:
            p = out / name
            if (p.exists() or p.is_symlink()) and not _owned(out, name, listed):
                raise UsageError(
                    f"refusing to overwrite {p}: it was not written by dps-verify (no {MARKER} there "
                    "lists it); choose another directory or move it away"
                )
    elif not out.parent.is_dir():
        raise UsageError(f"cannot write {what} {out}: parent directory {out.parent} does not exist")
    return out


def write_report_dir(
    outdir: str | os.PathLike, build: Callable[[Path], None], *, what: str = "report"
) -> Path:
    """Build a report with ``build(staging_dir)`` and move its entries into ``outdir``.

    ``build`` writes files and folders into the staging directory it is given.  If ``outdir``
    does not exist it is created (the whole staging directory is renamed into place).  If it
    exists, only the top-level entries ``build`` produced are moved in, each replacing an entry
    of the same name only if the marker says dps_verify wrote it; stale entries the marker lists
    that this report no longer has are removed; nothing else is touched.  The marker
    :data:`MARKER` is (re)written last.  Returns the absolute ``outdir``.
    """
    out = check_report_dir(outdir, (), what=what)
    fresh = not out.exists()
    parent = out.parent if fresh else out
    try:
        stage = _new_dir(parent, out.name if fresh else "report")
    except OSError as exc:
        raise UsageError(f"cannot write {what} {out}: {_why(exc)} ({parent})") from exc
    try:
        build(stage)
        names = sorted(n.name for n in stage.iterdir() if n.name != MARKER)
        files = sorted(f for n in names for f in _files_under(stage, n))
        marker_text = json.dumps({"tool": "dps-verify", "files": files}, indent=1) + "\n"
        if fresh:
            (stage / MARKER).write_text(marker_text, encoding="utf-8")
            os.replace(stage, out)
            _fsync_dir(out.parent)
            return out
        _install(out, stage, names, marker_text)
        return out
    except OSError as exc:
        raise UsageError(f"cannot write {what} {out}: {_why(exc)}") from exc
    finally:
        if stage.exists():
            shutil.rmtree(stage)


def _install(out: Path, stage: Path, names: list[str], marker_text: str) -> None:
    """Move the staged entries into the existing directory ``out`` (see :func:`write_report_dir`)."""
    check_report_dir(out, names)  # the directory may have changed while the report was built
    listed = _read_marker(out) or set()
    stale = sorted({f.split("/", 1)[0] for f in listed} - set(names) - {MARKER})
    stale = [n for n in stale if (out / n).exists() and _owned(out, n, listed)]
    backup = _new_dir(out, "previous")
    moved_old: list[str] = []
    moved_new: list[str] = []
    try:
        for n in names + stale:
            if os.path.lexists(out / n):
                os.replace(out / n, backup / n)
                moved_old.append(n)
        for n in names:
            os.replace(stage / n, out / n)
            moved_new.append(n)
        write_text(out / MARKER, marker_text, what="report marker")
    except BaseException:
        for n in moved_new:  # roll back: previous report as it was
            if os.path.lexists(out / n):
                os.replace(out / n, stage / n)
        for n in moved_old:
            os.replace(backup / n, out / n)
        raise
    finally:
        shutil.rmtree(backup, ignore_errors=True)
    _fsync_dir(out)


__all__ = ["GENERATOR", "MARKER", "check_output_file", "check_report_dir", "generator_json", "generator_markdown",
           "write_bytes", "write_output_file", "write_report_dir", "write_text", "written_by_us"]
