resource "azurerm_resource_group" "example" {
  name     = "example-resources"
  location = var.location
}

# The provider's example: every default applies (public network access on, local auth on, no
# inbound IP rules, EventGridSchema).
resource "azurerm_eventgrid_domain" "fail" {
  name                = "my-eventgrid-domain"
  location            = azurerm_resource_group.example.location
  resource_group_name = azurerm_resource_group.example.name

  tags = {
    environment = var.environment
  }
}

resource "azurerm_eventgrid_domain" "pass" {
  name                          = "locked-down-domain"
  location                      = azurerm_resource_group.example.location
  resource_group_name           = azurerm_resource_group.example.name
  public_network_access_enabled = false
  local_auth_enabled            = false
  input_schema                  = "CloudEventSchemaV1_0"

  auto_create_topic_with_first_subscription = false
  auto_delete_topic_with_last_subscription  = false

  identity {
    type = "SystemAssigned"
  }
}

resource "azurerm_eventgrid_domain" "mapped" {
  name                = "custom-schema-domain"
  location            = "westeurope"
  resource_group_name = "rg-events"
  input_schema        = "CustomEventSchema"

  input_mapping_fields {
    id         = "eventId"
    topic      = "topicName"
    event_time = "occurredAt"
    subject    = "subjectField"
  }

  input_mapping_default_values {
    event_type   = "Example.Event"
    data_version = "1.0"
  }

  inbound_ip_rule {
    ip_mask = "10.0.0.0/16"
  }

  inbound_ip_rule {
    ip_mask = "0.0.0.0/0"
    action  = "Allow"
  }

  identity {
    type         = "UserAssigned"
    identity_ids = ["/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-events/providers/Microsoft.ManagedIdentity/userAssignedIdentities/events-id"]
  }
}
