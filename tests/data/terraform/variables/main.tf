resource "azurerm_eventgrid_domain" "vars" {
  count                         = var.count_of
  name                          = "${var.from_default}.${var.from_tfvars}.${var.from_auto}.${var.from_var_file}.${var.from_cli}.${count.index}"
  location                      = "westeurope"
  resource_group_name           = "rg-vars"
  public_network_access_enabled = var.public

  dynamic "inbound_ip_rule" {
    for_each = var.rules
    content {
      ip_mask = inbound_ip_rule.value
    }
  }
}
