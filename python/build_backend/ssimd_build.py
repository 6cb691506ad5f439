"""A PEP 517 build backend for the ssimd client, written with the standard library only.

pip builds a project in an isolated environment into which it first installs the backend's
requirements; on a machine without a package index that step fails for setuptools. This backend
has no requirements (pyproject.toml: `requires = []`, `backend-path = ["build_backend"]`), so
`pip install ./python` works offline. It knows only what this project needs:

- [project]: name, version, description, readme, requires-python, dependencies, license, urls;
- [tool.ssimd-build] packages: the top-level packages put in the wheel, each a folder with its
  .py and .pyi files and py.typed (tests, *_test.py, and caches are left out);
- [tool.ssimd-build] sdist-extra: other files and folders an sdist carries besides those.

Hooks: build_wheel, build_sdist, build_editable (PEP 660: a .pth file naming the source folder),
prepare_metadata_for_build_wheel/_editable and the get_requires_* ones (nothing required).
Archives are reproducible: entries are sorted and dated SOURCE_DATE_EPOCH (else 1980-01-01).
"""

import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_WHEEL_TAG = "py3-none-any"
_SKIPPED_DIRS = {"__pycache__", ".mypy_cache", ".pytest_cache"}


# --- pyproject.toml -------------------------------------------------------------------------

def _parse_toml_subset(text):
    """A reader for the TOML this project writes (tables, strings, string arrays, inline tables
    of strings), used only where the tomllib module is missing (Python < 3.11)."""
    data, table = {}, None
    pending = ""
    for raw in text.splitlines():
        line = raw.split(" #")[0].strip() if not raw.strip().startswith("#") else ""
        if pending:
            pending += " " + line
            if not pending.rstrip().endswith("]"):
                continue
            line, pending = pending, ""
        if not line:
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9_.\-]+)\]", line)
        if header:
            table = data
            for part in header.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        key, sep, value = line.partition("=")
        if not sep or table is None:
            raise ValueError(f"pyproject.toml: cannot read {raw!r}")
        value = value.strip()
        if value.startswith("[") and not value.endswith("]"):
            pending = line
            continue
        table[key.strip().strip('"')] = _toml_value(value)
    return data


def _toml_value(value):
    if value.startswith("["):
        return re.findall(r'"((?:[^"\\]|\\.)*)"', value)
    if value.startswith("{"):
        return dict(re.findall(r'([A-Za-z0-9_\-]+)\s*=\s*"((?:[^"\\]|\\.)*)"', value))
    if value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    raise ValueError(f"pyproject.toml: unsupported value {value!r}")


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        raw = f.read()
    try:
        import tomllib
    except ImportError:
        return _parse_toml_subset(raw.decode("utf-8"))
    return tomllib.loads(raw.decode("utf-8"))


class _Project:
    def __init__(self):
        config = _pyproject()
        project = config["project"]
        tool = config.get("tool", {}).get("ssimd-build", {})
        self.name = project["name"]
        self.version = project["version"]
        self.project = project
        self.packages = list(tool.get("packages", []))
        self.sdist_extra = list(tool.get("sdist-extra", []))
        if not self.packages:
            raise ValueError("pyproject.toml: [tool.ssimd-build] packages is empty")
        # Wheel and dist-info names: the normalized name with '_' (PEP 427, PEP 503).
        self.file_name = re.sub(r"[-_.]+", "_", self.name).lower()
        self.dist_info = f"{self.file_name}-{self.version}.dist-info"

    def metadata(self):
        """Core metadata 2.1 (PKG-INFO / METADATA)."""
        p = self.project
        lines = ["Metadata-Version: 2.1", f"Name: {self.name}", f"Version: {self.version}"]
        if "description" in p:
            lines.append(f"Summary: {p['description']}")
        if "requires-python" in p:
            lines.append(f"Requires-Python: {p['requires-python']}")
        license_value = p.get("license")
        if isinstance(license_value, dict) and "text" in license_value:
            lines.append(f"License: {license_value['text']}")
        for label, url in sorted(p.get("urls", {}).items()):
            lines.append(f"Project-URL: {label}, {url}")
        for classifier in p.get("classifiers", []):
            lines.append(f"Classifier: {classifier}")
        for requirement in p.get("dependencies", []):
            lines.append(f"Requires-Dist: {requirement}")
        body = ""
        readme = p.get("readme")
        if isinstance(readme, str):
            with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
                body = f.read()
            content_type = "text/markdown" if readme.endswith(".md") else "text/plain"
            lines.append(f"Description-Content-Type: {content_type}")
        text = "\n".join(lines) + "\n"
        if body:
            text += "\n" + body
        return text.encode("utf-8")

    def wheel_file(self, generator):
        return (f"Wheel-Version: 1.0\nGenerator: {generator}\nRoot-Is-Purelib: true\n"
                f"Tag: {_WHEEL_TAG}\n").encode("ascii")

    def package_files(self):
        """(archive path, absolute path) of every file of the packages, sorted."""
        out = []
        for package in self.packages:
            top = os.path.join(ROOT, package)
            if not os.path.isfile(os.path.join(top, "__init__.py")):
                raise ValueError(f"package {package!r}: {top} has no __init__.py")
            for folder, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
                for name in sorted(files):
                    if name.endswith("_test.py") or not (
                            name.endswith((".py", ".pyi")) or name == "py.typed"):
                        continue
                    path = os.path.join(folder, name)
                    out.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), path))
        return sorted(out)


# --- archives -------------------------------------------------------------------------------

def _timestamp():
    epoch = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    return epoch


class _Wheel:
    """Writes a wheel and its RECORD (sha256 in urlsafe base64 without padding, and sizes)."""

    def __init__(self, path):
        self._zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self._records = []
        self._date = time.gmtime(_timestamp())[:6]

    def add(self, name, data, executable=False):
        info = zipfile.ZipInfo(name, date_time=self._date)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o100755 if executable else 0o100644) << 16
        self._zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        self._records.append(f"{name},sha256={digest.decode('ascii')},{len(data)}")

    def close(self, record_name):
        lines = self._records + [f"{record_name},,"]
        info = zipfile.ZipInfo(record_name, date_time=self._date)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o100644 << 16
        self._zip.writestr(info, ("\n".join(lines) + "\n").encode("utf-8"))
        self._zip.close()


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _generator():
    return "ssimd_build (python/build_backend)"


def _write_dist_info(wheel, project, extra=()):
    for name, data in extra:
        wheel.add(f"{project.dist_info}/{name}", data)
    wheel.add(f"{project.dist_info}/METADATA", project.metadata())
    wheel.add(f"{project.dist_info}/WHEEL", project.wheel_file(_generator()))


def _wheel_name(project):
    return f"{project.file_name}-{project.version}-{_WHEEL_TAG}.whl"


def _metadata_dir(metadata_directory, project):
    target = os.path.join(metadata_directory, project.dist_info)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "METADATA"), "wb") as f:
        f.write(project.metadata())
    with open(os.path.join(target, "WHEEL"), "wb") as f:
        f.write(project.wheel_file(_generator()))
    return project.dist_info


# --- PEP 517 / PEP 660 hooks ----------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _metadata_dir(metadata_directory, _Project())


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _metadata_dir(metadata_directory, _Project())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _Project()
    name = _wheel_name(project)
    os.makedirs(wheel_directory, exist_ok=True)
    wheel = _Wheel(os.path.join(wheel_directory, name))
    for archive_name, path in project.package_files():
        wheel.add(archive_name, _read(path))
    _write_dist_info(wheel, project)
    wheel.close(f"{project.dist_info}/RECORD")
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel holding only a .pth file that puts this source folder on sys.path."""
    project = _Project()
    name = _wheel_name(project)
    os.makedirs(wheel_directory, exist_ok=True)
    wheel = _Wheel(os.path.join(wheel_directory, name))
    wheel.add(f"__editable__.{project.file_name}.pth", (ROOT + "\n").encode("utf-8"))
    _write_dist_info(wheel, project)
    wheel.close(f"{project.dist_info}/RECORD")
    return name


def build_sdist(sdist_directory, config_settings=None):
    project = _Project()
    base = f"{project.file_name}-{project.version}"
    files = [("pyproject.toml", os.path.join(ROOT, "pyproject.toml"))]
    here = os.path.abspath(__file__)
    files.append((os.path.relpath(here, ROOT).replace(os.sep, "/"), here))
    for extra in project.sdist_extra:
        path = os.path.join(ROOT, extra)
        if os.path.isdir(path):
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
                for n in sorted(names):
                    full = os.path.join(folder, n)
                    files.append((os.path.relpath(full, ROOT).replace(os.sep, "/"), full))
        elif os.path.isfile(path):
            files.append((extra, path))
    for package in project.packages:  # the sdist carries the package tests too
        for folder, dirs, names in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
            for n in sorted(names):
                full = os.path.join(folder, n)
                files.append((os.path.relpath(full, ROOT).replace(os.sep, "/"), full))
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = _timestamp()
    members = [("PKG-INFO", project.metadata(), 0o644)]
    members += [(arc, _read(path), 0o755 if os.stat(path).st_mode & 0o111 else 0o644)
                for arc, path in sorted(set(files))]
    with open(os.path.join(sdist_directory, name), "wb") as out:
        with gzip.GzipFile(fileobj=out, mode="wb", mtime=mtime, filename="") as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                for arc, data, mode in members:
                    info = tarfile.TarInfo(f"{base}/{arc}")
                    info.size, info.mtime, info.mode = len(data), mtime, mode
                    info.uname = info.gname = ""
                    tar.addfile(info, io.BytesIO(data))
    return name
