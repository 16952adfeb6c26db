from_var_file = "var-file"
from_cli      = "var-file"
public        = "false"
