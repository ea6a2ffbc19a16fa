"""The validator as a pytest suite for an implementation's own CI, in the manner of
array-api-tests: ::

    pytest --pyargs properties.suite --impl mypkg.mod -n auto --junitxml=out.xml

collects one test item per adapter function ``mypkg.mod`` defines (``test_function[<name>]``: the
search, then its statistical checks) and one per applicable claim (``test_claim[<id>]``: its verdict
on the module must be the recorded finding, repairs included).  pytest-xdist runs the items in
parallel.  :mod:`properties.suite.plugin` (registered through the ``pytest11`` entry point) adds the
options ``--impl``, ``--impl-profile``, ``--impl-seed`` and ``--impl-timeout``.
"""

__all__: list[str] = []
