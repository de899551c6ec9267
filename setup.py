"""Maps the repository's fixed top-level folders into one import package, ``span_toolkit``.

Metadata lives in pyproject.toml; this file only says where each subpackage's files are, because the folders
(span/, server/, client/, prompts/) keep their names while the wheel installs a single top-level name:
span/ -> span_toolkit.span, server/ -> span_toolkit.server, client/ -> span_toolkit.client,
prompts/ -> span_toolkit.prompts (the inspect_ai integration is span_toolkit/ itself). Subpackages are found,
not listed, so a new slice (a task family, a calendar subpackage) needs no line here.
"""
from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

PARTS = ("span", "server", "client", "prompts")
# Development tools that live beside the code they regenerate but never run in it: they stay in the checkout
# (the tests and `python -m span_toolkit.span.calendars.sources --regenerate` use them) and out of the wheel.
DEV_ONLY = {("span_toolkit.span.calendars", "sources"),
            # the new-moon/solar-term rule (PyEphem) that computed the Korean and Vietnamese tables
            ("span_toolkit.span.calendars", "korean_lunar_astro")}


class BuildPyWithoutDevTools(build_py):
    def find_package_modules(self, package, package_dir):
        return [m for m in super().find_package_modules(package, package_dir) if (m[0], m[1]) not in DEV_ONLY]

packages = find_packages(include=["span_toolkit", "span_toolkit.*"])
package_dir = {"span_toolkit": "span_toolkit"}
for part in PARTS:
    package_dir[f"span_toolkit.{part}"] = part
    packages.append(f"span_toolkit.{part}")
    packages += [f"span_toolkit.{part}.{sub}" for sub in find_packages(part)]

setup(packages=packages, package_dir=package_dir, cmdclass={"build_py": BuildPyWithoutDevTools})
