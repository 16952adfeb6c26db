variable "location" {
  type    = string
  default = "West Europe"
}

variable "environment" {
  type    = string
  default = "Production"
}
