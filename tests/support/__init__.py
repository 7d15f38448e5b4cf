"""What the suites share to start real processes (Jupyter servers, kernels, HTTP stand-ins)
or to avoid starting one, and the markers that say which tests start them
(``make test-fast`` leaves those out).

- :mod:`tests.support.servers`: start ``jupyter server`` / ``jupyter lab`` /
  ``jupyter notebook`` on a loopback port, wait until it answers, stop it by pid.
- :mod:`tests.support.kernels`: run cells in a real IPython kernel (nbclient), or
  start one and talk to it (``started_kernel``), with an explicit environment,
  never by editing ``os.environ`` by hand.
- :mod:`tests.support.cli`: the ``jupyter-memory`` command's ``main()`` in the
  test's process, its output shaped as ``subprocess.run`` gives it.
- :mod:`tests.support.http`: a test's HTTP server on a thread that stops at once.
- :mod:`tests.support.waiting`: wait on a condition with a generous deadline (a busy
  machine makes a passing test slower, not red); ``polled`` asks a server again until
  its answer is done.
- :mod:`tests.support.proc_state`: whether a process sent SIGSTOP has stopped yet
  (the signal is queued at once, the process stops when next scheduled).
- :mod:`tests.support.markers`: the ``browser``/``kernel``/``server`` markers added
  at collection by what a test uses (its folder, its fixtures, its imports).
"""
