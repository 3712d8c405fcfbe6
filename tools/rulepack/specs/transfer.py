"""KV-cache and encoder-cache transfer (KVTransferConfig, ECTransferConfig)."""

from tools.rulepack.expr import R, py_tuple, sub

# get_args(KVRole) / get_args(ECRole): the union of the producer and consumer literals, as Python prints it
KV_ROLES = py_tuple(["kv_producer", "kv_both", "kv_consumer"])
EC_ROLES = py_tuple(["ec_producer", "ec_both", "ec_consumer"])

RULES = [
    R(
        "kv-connector-requires-kv-role",
        "Please specify kv_role when kv_connector is set",
        f"{sub('kv_transfer_config', 'kv_connector')} && !{sub('kv_transfer_config', 'kv_role')}",
        ["kv_transfer_config"],
        ["Set kv_role (kv_producer, kv_consumer or kv_both) in --kv-transfer-config"],
        "KVTransferConfig.",
        ["kv-transfer"],
        values={"get_args(KVRole)": KV_ROLES},
    ),
    R(
        "kv-role-unsupported",
        "Unsupported kv_role: {self.kv_role}.",
        f"{sub('kv_transfer_config', 'kv_role')} && "
        '!(args.kv_transfer_config.kv_role in ["kv_producer", "kv_consumer", "kv_both"])',
        ["kv_transfer_config"],
        ["Use kv_role kv_producer, kv_consumer or kv_both"],
        "KVTransferConfig.",
        ["kv-transfer"],
        values={"self.kv_role": "args.kv_transfer_config.kv_role", "get_args(KVRole)": KV_ROLES},
    ),
    R(
        "ec-connector-requires-ec-role",
        "Please specify ec_role when ec_connector is set, supported roles are {get_args(ECRole)}",
        f"{sub('ec_transfer_config', 'ec_connector')} && !{sub('ec_transfer_config', 'ec_role')}",
        ["ec_transfer_config"],
        ["Set ec_role (ec_producer, ec_consumer or ec_both) in --ec-transfer-config"],
        "ECTransferConfig (encoder-cache transfer for disaggregated encoders).",
        ["ec-transfer"],
        values={"get_args(ECRole)": EC_ROLES},
    ),
    R(
        "ec-role-unsupported",
        "Unsupported ec_role: {self.ec_role}. Supported roles are {get_args(ECRole)}",
        (
            f"{sub('ec_transfer_config', 'ec_role')} && !(args.ec_transfer_config.ec_role in "
            f'["ec_producer", "ec_consumer", "ec_both"])'
        ),
        ["ec_transfer_config"],
        ["Use ec_role ec_producer, ec_consumer or ec_both"],
        "ECTransferConfig (ECRole is the union of the producer and consumer literals).",
        ["ec-transfer"],
        values={"self.ec_role": "args.ec_transfer_config.ec_role", "get_args(ECRole)": EC_ROLES},
    ),
]

CASES = {
    "kv-connector-requires-kv-role": (
        {"kv_transfer_config": {"kv_connector": "NixlConnector"}},
        {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}},
    ),
    "kv-role-unsupported": (
        {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "producer"}},
        {"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_producer"}},
    ),
    "ec-connector-requires-ec-role": (
        {"ec_transfer_config": {"ec_connector": "ECExampleConnector"}},
        {"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "ec_consumer"}},
    ),
    "ec-role-unsupported": (
        {"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "producer"}},
        {"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "ec_producer"}},
    ),
}
