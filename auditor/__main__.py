from auditor.cli import run

run()
