"""``croupier doctor``: checks the table's hardware and its host, and says in words what to fix.

One module per group of checks (camera, dealing machine, panel, the system), each a generator of
:class:`~controller.doctor.findings.Finding` s, so the terminal shows each result as it comes;
:mod:`controller.doctor.examine` runs them in order over the devices the settings name.
"""
