"""The two build paths of the knowledge-worker image read the same package lists (no Docker needed here)."""

from __future__ import annotations

import pytest

from jobenv.sandbox.image import _package_list, base_image, debian_mirror, dockerfile_dir


def test_both_paths_install_the_same_lists() -> None:
    dockerfile = (dockerfile_dir() / "Dockerfile").read_text()
    assert "apt-packages.txt" in dockerfile and "requirements.txt" in dockerfile
    apt = set(_package_list("apt-packages.txt"))
    assert {"python3", "python3-pip", "poppler-utils", "libreoffice-calc-nogui", "libreoffice-writer-nogui",
            "libreoffice-impress-nogui", "bash", "coreutils", "jq", "unzip", "curl"} <= apt
    pip = {line.split(">")[0].split("=")[0] for line in _package_list("requirements.txt")}
    assert {"pandas", "openpyxl", "pdfplumber", "python-docx", "python-pptx", "mammoth"} <= pip
    # the Dockerfile's base is Debian's, as the debootstrap path is (same Python, same packages)
    assert base_image().startswith("debian:bookworm")


def test_mirror_comes_from_the_environment_or_apt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBENV_DEBIAN_MIRROR", "http://mirror.example/debian")
    assert debian_mirror() == "http://mirror.example/debian"
    monkeypatch.delenv("JOBENV_DEBIAN_MIRROR")
    assert debian_mirror().startswith("http") and debian_mirror().endswith("/debian")
