variable "from_default" {
  type    = string
  default = "default"
}

variable "from_tfvars" {
  type    = string
  default = "default"
}

variable "from_auto" {
  type    = string
  default = "default"
}

variable "from_var_file" {
  type    = string
  default = "default"
}

variable "from_cli" {
  type    = string
  default = "default"
}

variable "public" {
  type    = bool
  default = true
}

variable "count_of" {
  type    = number
  default = 1
}

variable "rules" {
  type    = list(string)
  default = []
}
