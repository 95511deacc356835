"""write_text_atomic: whole files or nothing under the final name."""

from __future__ import annotations

import os

import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import write_text_atomic


def test_writes_and_replaces(tmp_path):
    p = write_text_atomic(tmp_path / "a" / "out.txt", "one")
    assert p.read_text() == "one"
    write_text_atomic(p, "two")
    assert p.read_text() == "two" and os.listdir(p.parent) == ["out.txt"]


def test_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    p = write_text_atomic(tmp_path / "out.txt", "old")

    def boom(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(p, "new")
    assert p.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]


def test_unwritable_place_is_a_user_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="cannot write"):
        write_text_atomic(blocker / "sub" / "out.txt", "x")


def test_parse_yaml_names_the_place_and_line():
    from gpubfs_cli.files import parse_yaml

    assert parse_yaml("a: 1\n", "x.yaml") == {"a": 1}
    with pytest.raises(UserError, match=r"^x\.yaml:2: not valid YAML"):
        parse_yaml("a: 1\nb: c: d\n", "x.yaml")


def test_plain_json_converts_numpy_and_summarizes_long_arrays():
    import numpy as np

    from gpubfs_cli.files import plain_json

    doc = {1: np.int64(3), "a": (np.float32(0.5), np.arange(3)), "big": np.zeros(100)}
    assert plain_json(doc, array_limit=64) == {"1": 3, "a": [0.5, [0, 1, 2]], "big": "array(100,)"}
    assert plain_json(doc)["big"] == [0.0] * 100


# ---------------------------------------------------------------- output paths
def _special_paths(tmp_path):
    """A FIFO, a symbolic link to a regular file, a folder and (where this process may
    make one) a character device node like /dev/null, all under tmp_path."""
    import stat

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    link = tmp_path / "link"
    link.symlink_to(target)
    folder = tmp_path / "folder"
    folder.mkdir()
    paths = {"fifo": fifo, "link": link, "folder": folder}
    try:
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        paths["device"] = tmp_path / "null"
    except (PermissionError, OSError):
        pass
    return paths, target


def _kinds(paths):
    import stat

    return {name: stat.S_IFMT(os.lstat(p).st_mode) for name, p in paths.items()}


def test_output_paths_a_rename_would_replace_are_refused(tmp_path):
    """write_text_atomic renames over PATH: a FIFO, a link, a device or a folder there is
    refused (one line naming it), and each is left exactly as it was."""
    from gpubfs_cli.files import check_output_path

    paths, target = _special_paths(tmp_path)
    before = _kinds(paths)
    expected = {"fifo": "is a FIFO", "link": "is a symbolic link", "folder": "is a folder",
                "device": "is a character device"}
    for name, p in paths.items():
        for call, args in ((check_output_path, (p, "results file")), (write_text_atomic, (p, "x", "results file"))):
            with pytest.raises(UserError) as info:
                call(*args)
            assert str(info.value).startswith(f"{p}: {expected[name]}"), str(info.value)
            assert "\n" not in str(info.value)
    assert _kinds(paths) == before and target.read_text() == "keep me"
    assert sorted(os.listdir(tmp_path)) == sorted([p.name for p in paths.values()] + ["target.txt"])  # no temporary


def test_dev_null_is_refused_without_touching_it():
    import stat

    from gpubfs_cli.files import check_output_path

    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null here")
    with pytest.raises(UserError, match=r"^/dev/null: is a character device; the report goes to a regular file or a new path$"):
        check_output_path("/dev/null", "report")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_path_checks_the_folder_up_front(tmp_path):
    from gpubfs_cli.files import check_output_path

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match=r"file/sub/out\.json: cannot write the output there \(.*file is not a folder\)"):
        check_output_path(blocker / "sub" / "out.json")
    with pytest.raises(UserError, match=r"not a file name"):
        check_output_path(tmp_path / "..")
    # a folder still to be made is fine, and the check makes nothing
    assert check_output_path(tmp_path / "a" / "b" / "out.json") == tmp_path / "a" / "b" / "out.json"
    assert sorted(os.listdir(tmp_path)) == ["file"]
    if os.path.isdir("/proc/self"):
        with pytest.raises(UserError, match=r"^/proc/x\.json: cannot write the output in /proc"):
            check_output_path("/proc/x.json")


def test_full_disk_is_a_user_error_and_leaves_no_temporary(tmp_path, monkeypatch):
    import errno
    import io

    real_fdopen = os.fdopen

    class Full(io.TextIOWrapper):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd, mode="r", **kw):
        return Full(real_fdopen(fd, "wb"), encoding="utf-8")

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(UserError, match=r"out\.txt: cannot write the output \(No space left on device\)"):
        write_text_atomic(tmp_path / "out.txt", "x")
    assert os.listdir(tmp_path) == []


def test_read_text_file_refuses_binary_folders_and_missing(tmp_path):
    from gpubfs_cli.files import read_text_file

    ok = tmp_path / "ok.yaml"
    ok.write_text("a: 1\n")
    assert read_text_file(ok, "run config") == "a: 1\n"
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"a: 1\nb: \xff\xfe\x00\n")
    with pytest.raises(UserError, match=r"bin\.yaml:2: not a run config: not UTF-8 text \(byte 0xff at offset 8\)$"):
        read_text_file(binary, "run config")
    with pytest.raises(UserError, match=r": is a folder, expected a run config$"):
        read_text_file(tmp_path, "run config")
    with pytest.raises(UserError, match=r"nope\.yaml: no such run config$"):
        read_text_file(tmp_path / "nope.yaml", "run config")


def test_read_text_file_reads_gzip_and_refuses_a_broken_one(tmp_path):
    import gzip

    from gpubfs_cli.files import read_text_file

    packed = tmp_path / "r.json.gz"
    packed.write_bytes(gzip.compress(b'{"a": 1}\n'))
    assert read_text_file(packed, "results file") == '{"a": 1}\n'
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(packed.read_bytes()[:-6])
    with pytest.raises(UserError, match=r"cut\.json\.gz: cannot read the results file \("):
        read_text_file(cut, "results file")
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"\x1f\x8b" + b"\x00" * 20)
    with pytest.raises(UserError, match=r"bad\.json\.gz: cannot read the results file \("):
        read_text_file(bad, "results file")


def test_parse_yaml_control_characters_and_deep_nesting():
    from gpubfs_cli.files import parse_yaml

    with pytest.raises(UserError, match=r"^x\.yaml:2: not valid YAML \(unacceptable character #x0000\)$"):
        parse_yaml("a: 1\nb: \x00\n", "x.yaml")
    with pytest.raises(UserError, match=r"^x\.yaml: not valid YAML"):
        parse_yaml("[" * 1000, "x.yaml")


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_written_file_mode_follows_the_umask(tmp_path, mask):
    """A results or report file gets the mode any new file gets (0666 less the umask),
    not mkstemp's private 0600; replacing a file does the same."""
    old = os.umask(mask)
    try:
        p = write_text_atomic(tmp_path / "out.json", "{}")
        assert os.stat(p).st_mode & 0o777 == 0o666 & ~mask
        write_text_atomic(p, "{} ")
        assert os.stat(p).st_mode & 0o777 == 0o666 & ~mask
    finally:
        os.umask(old)


def test_parse_yaml_refuses_a_key_given_twice_but_not_a_merge_override():
    from gpubfs_cli.files import parse_yaml

    with pytest.raises(UserError, match=r"^x\.yaml:3: key 'a' given twice in one mapping \(first at line 1\); keep one$"):
        parse_yaml("a: 1\nb: 2\na: 3\n", "x.yaml")
    with pytest.raises(UserError, match=r"^x\.yaml:2: key 'k' given twice"):
        parse_yaml("top:\n  - {k: 1, j: 2, k: 3}\n", "x.yaml")
    # a merge brings keys in, and the mapping's own key may override one of them
    doc = parse_yaml("a: &on {k: 1, j: 2}\nb: {<<: *on, k: 3}\n", "x.yaml")
    assert doc == {"a": {"k": 1, "j": 2}, "b": {"k": 3, "j": 2}}


def test_read_text_file_refuses_what_is_not_a_regular_file(tmp_path):
    from gpubfs_cli.files import check_input_file, read_text_file

    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # opened plainly for reading, it would wait for a writer forever
    for call in (read_text_file, check_input_file):
        with pytest.raises(UserError, match=r"pipe\.yaml: is a FIFO \(named pipe\), expected a run config \(a regular file\)$"):
            call(fifo, "run config")
    if os.path.exists("/dev/zero"):
        with pytest.raises(UserError, match=r"^/dev/zero: is a character device, expected a run config"):
            read_text_file("/dev/zero", "run config")


def test_read_text_file_bounds_the_size_on_disk_and_decompressed(tmp_path, monkeypatch):
    import gzip

    from gpubfs_cli import files

    monkeypatch.setattr(files, "MAX_READ_BYTES", 100)
    exact = tmp_path / "exact.json"
    exact.write_text("x" * 100)
    assert files.read_text_file(exact, "results file") == "x" * 100
    over = tmp_path / "over.json"
    over.write_text("x" * 101)
    with pytest.raises(UserError, match=r"over\.json: larger than 100 bytes on disk; not a results file"):
        files.read_text_file(over, "results file")
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b"x" * 10_000))
    assert bomb.stat().st_size <= 100
    with pytest.raises(UserError, match=r"bomb\.json\.gz: larger than 100 bytes once decompressed"):
        files.read_text_file(bomb, "results file")


# ---------------------------------------------------------------- racing writers
def _racing(monkeypatch, parties: int = 2):
    """Hold every writer after it made its temporary file (past every check made before
    writing) until all have: then they publish at the same moment."""
    import tempfile
    import threading

    from gpubfs_cli import files

    barrier = threading.Barrier(parties, timeout=10)
    real = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        made = real(*args, **kwargs)
        barrier.wait()
        return made

    monkeypatch.setattr(files.tempfile, "mkstemp", mkstemp)


def _race(target, texts, **kwargs):
    """Each text written to `target` by its own thread; -> (texts written, errors)."""
    import threading

    won, lost = [], []

    def write(text):
        try:
            write_text_atomic(target, text, **kwargs)
            won.append(text)
        except UserError as exc:
            lost.append(str(exc))

    threads = [threading.Thread(target=write, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return won, lost


def test_racing_writers_without_force_one_writes_the_other_is_refused(tmp_path, monkeypatch):
    """Both pass the check for an existing file before writing; publishing is the check
    that counts: one file, whole, and one refusal."""
    _racing(monkeypatch)
    target = tmp_path / "report.md"
    won, lost = _race(target, ["A" * 100_000, "B" * 100_000], force=False)
    assert len(won) == 1, (won, lost)
    assert lost == [f"{target}: already exists; give --force to replace it, or another --out"]
    assert target.read_text() == won[0]
    assert os.listdir(tmp_path) == ["report.md"]  # no temporary left by either


def test_racing_writers_with_force_both_write_and_the_file_is_one_of_them(tmp_path, monkeypatch):
    _racing(monkeypatch)
    target = tmp_path / "report.md"
    target.write_text("old")
    won, lost = _race(target, ["A" * 100_000, "B" * 100_000], force=True)
    assert sorted(won) == ["A" * 100_000, "B" * 100_000] and lost == []
    assert target.read_text() in won and os.listdir(tmp_path) == ["report.md"]


def test_nothing_half_written_is_visible_while_writing(tmp_path):
    from gpubfs_cli.files import atomic_output

    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with atomic_output(target, binary=True) as f:
        f.write(b"new" * 1000)
        f.flush()
        assert target.read_bytes() == b"old"
    assert target.read_bytes() == b"new" * 1000
    with atomic_output(tmp_path / "fresh.txt", force=False) as f:
        f.write("x")
        assert not (tmp_path / "fresh.txt").exists()
    assert (tmp_path / "fresh.txt").read_text() == "x"


def test_a_file_system_without_hard_links_still_refuses_exactly(tmp_path, monkeypatch):
    import errno

    def no_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "out.txt"
    write_text_atomic(target, "first", force=False)
    assert target.read_text() == "first"
    _racing(monkeypatch)
    target.unlink()
    won, lost = _race(target, ["one", "two"], force=False)
    assert len(won) == 1 and len(lost) == 1 and "already exists; give --force" in lost[0]
    assert target.read_text() == won[0] and os.listdir(tmp_path) == ["out.txt"]
