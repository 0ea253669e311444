"""nbgrader's configuration for every server of the hub (put it in ``/etc/jupyter/``): where the
exchange is, which course a student takes (from the hub's groups), the course's directory for
the grader account. See ``jupyterhub_nbgrader.py`` beside this file."""
c = get_config()  # noqa: F821 - defined by nbgrader when it loads this file

c.Exchange.root = "/srv/nbgrader/exchange"        # shared, world-writable (a RWX volume on k8s)
c.Exchange.path_includes_course = True            # several courses may share the exchange
c.Authenticator.plugin_class = "nbgrader.auth.JupyterHubAuthPlugin"   # the hub's groups
c.CourseDirectory.course_id = "kernelnb"
c.CourseDirectory.root = "/home/grader-kernelnb/kernelnb"   # on Kubernetes: the instructor's home
# SQLite is safe for one grader at a time; with several, a Postgres database
# (jupyter/nbgrader FAQ): c.CourseDirectory.db_url = "postgresql://..."
c.ExecutePreprocessor.timeout = 300               # an exercise with a dashboard check
