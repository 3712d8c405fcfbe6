"""StructuredOutputsConfig."""

from tools.rulepack.expr import SO, R, sub, subv

RULES = [
    R(
        "structured-outputs-any-whitespace-backend",
        "disable_any_whitespace is only supported for xgrammar and guidance backends.",
        f"{sub(SO, 'disable_any_whitespace')} && args.{SO}.disable_any_whitespace == true && "
        f'!({subv(SO, "backend", chr(34) + "auto" + chr(34))} in ["xgrammar", "guidance"])',
        ["structured_outputs_config"],
        [
            "Select the backend explicitly: --structured-outputs-config.backend xgrammar (or guidance)",
            "Remove disable_any_whitespace",
        ],
        "StructuredOutputsConfig validator. The default backend 'auto' is refused too: the option needs the "
        "backend chosen explicitly.",
        ["structured-outputs"],
        example_fix=(
            "# before\nvllm serve model --structured-outputs-config.disable_any_whitespace true\n# after\n"
            'vllm serve model --structured-outputs-config \'{"backend": "xgrammar", '
            '"disable_any_whitespace": true}\''
        ),
        fix={"set": {"structured_outputs_config.backend": "xgrammar"}},
    ),
    R(
        "structured-outputs-additional-properties-backend",
        "disable_additional_properties is only supported for the guidance backend.",
        f"{sub(SO, 'disable_additional_properties')} && args.{SO}.disable_additional_properties == true && "
        f'{subv(SO, "backend", chr(34) + "auto" + chr(34))} != "guidance"',
        ["structured_outputs_config"],
        ["Select --structured-outputs-config.backend guidance", "Remove disable_additional_properties"],
        "StructuredOutputsConfig validator; the default backend 'auto' is refused too.",
        ["structured-outputs"],
        example_fix=(
            "# before\nvllm serve model --structured-outputs-config.disable_additional_properties true\n"
            '# after\nvllm serve model --structured-outputs-config \'{"backend": "guidance", '
            '"disable_additional_properties": true}\''
        ),
        fix={"set": {"structured_outputs_config.backend": "guidance"}},
    ),
]

CASES = {
    "structured-outputs-any-whitespace-backend": (
        {"structured_outputs_config": {"disable_any_whitespace": True}},
        {"structured_outputs_config": {"backend": "xgrammar", "disable_any_whitespace": True}},
    ),
    "structured-outputs-additional-properties-backend": (
        {"structured_outputs_config": {"backend": "xgrammar", "disable_additional_properties": True}},
        {"structured_outputs_config": {"backend": "guidance", "disable_additional_properties": True}},
    ),
}
