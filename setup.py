"""Maps the repository's fixed top-level folders into one import package, ``span_toolkit``.

Metadata lives in pyproject.toml; this file only says where each subpackage's files are, because the folders
(span/, server/, client/, prompts/) keep their names while the wheel installs a single top-level name:
span/ -> span_toolkit.span, server/ -> span_toolkit.server, client/ -> span_toolkit.client,
prompts/ -> span_toolkit.prompts (the inspect_ai integration is span_toolkit/ itself). Subpackages are found,
not listed, so a new slice (a task family, a calendar subpackage) needs no line here.
"""
from setuptools import find_packages, setup

PARTS = ("span", "server", "client", "prompts")

packages = find_packages(include=["span_toolkit", "span_toolkit.*"])
package_dir = {"span_toolkit": "span_toolkit"}
for part in PARTS:
    package_dir[f"span_toolkit.{part}"] = part
    packages.append(f"span_toolkit.{part}")
    packages += [f"span_toolkit.{part}.{sub}" for sub in find_packages(part)]

setup(packages=packages, package_dir=package_dir)
