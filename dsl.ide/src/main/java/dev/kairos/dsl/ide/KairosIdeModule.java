package dev.kairos.dsl.ide;

/** Use this class to register ide components. */
public class KairosIdeModule extends AbstractKairosIdeModule {}
