from tests.sandbox.fixtures import backend, docker_image, new_sandbox, sandbox_options, task_dir  # noqa: F401
