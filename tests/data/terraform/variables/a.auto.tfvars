from_auto     = "auto-a"
from_var_file = "auto-a"
from_cli      = "auto-a"
