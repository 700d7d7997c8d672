package dev.kairos.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rooms of the house and what each may import, as docs/architecture.md draws them, checked on
 * the class files of every module: {@code ir} and {@code timing} see nothing of EMF, Xtext, Guice
 * or the language; {@code reports} nothing of the language or the generator; the emitters read the
 * analysis's results, never an analysis itself.
 */
class ModuleBoundariesTest {
  private static JavaClasses production;

  @BeforeAll
  static void importClasses() {
    production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.kairos");
  }

  /** What the modules' code may never reach: the language's EMF model and its machinery. */
  private static final String[] MODEL_MACHINERY = {
    "org.eclipse..", "com.google.inject..", "dev.kairos.dsl.."
  };

  @Test
  void theIrImportsOnlyTheJdk() {
    check(
        classes()
            .that()
            .resideInAPackage("dev.kairos.ir..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "dev.kairos.ir.."));
  }

  @Test
  void theAnalysesImportOnlyTheIrAndTheJdk() {
    check(
        classes()
            .that()
            .resideInAPackage("dev.kairos.timing..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "dev.kairos.ir..", "dev.kairos.timing.."));
  }

  @Test
  void irAndTimingNeverSeeTheModelMachinery() {
    check(
        noClasses()
            .that()
            .resideInAnyPackage("dev.kairos.ir..", "dev.kairos.timing..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(MODEL_MACHINERY));
  }

  @Test
  void reportsSeeNeitherTheLanguageNorTheGenerator() {
    check(
        noClasses()
            .that()
            .resideInAPackage("dev.kairos.reports..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "dev.kairos.dsl..",
                "dev.kairos.generator..",
                "dev.kairos.cli..",
                "dev.kairos.languageserver..",
                "org.eclipse.xtext..",
                "com.google.inject.."));
  }

  /**
   * The analysis's results an emitter may read: the report of the system and the records it holds.
   * An emitter that calls an analysis (or a helper of one) computes a bound of its own, which is
   * how bounds drifted before.
   */
  private static final Pattern RESULTS =
      Pattern.compile(
          "dev\\.kairos\\.timing\\.(TimingPlan|NodePlan|TaskReport|ChainReport|Finding"
              + "|EndToEndAnalysis\\$GateReport|ServiceRates\\$(Report|Caller)|BccAdmission\\$Admission"
              + "|ReleaseTable)(\\$.*)?");

  private static final DescribedPredicate<JavaClass> ANALYSIS_INTERNALS =
      DescribedPredicate.describe(
          "timing classes other than the analysis's results",
          c ->
              c.getPackageName().equals("dev.kairos.timing")
                  && !RESULTS.matcher(c.getName()).matches());

  @Test
  void emittersReadTheResultsNotTheAnalyses() {
    check(
        noClasses()
            .that()
            .resideInAPackage("dev.kairos.generator.emit..")
            .should()
            .dependOnClassesThat(ANALYSIS_INTERNALS));
  }

  /**
   * Inside {@code timing} the analyses call one way: the holistic analysis calls a node's analysis,
   * which calls its steps (the core placement, the release-table play, BCC admission and the
   * arithmetic they share); no step calls back. Where a step needs the node's analysis (the core
   * placement asks whether a core holds), it is handed one.
   */
  @Test
  void theAnalysesCallOneWay() {
    check(
        noClasses()
            .that()
            .haveNameMatching(
                "dev\\.kairos\\.timing\\.(ReleaseTableAnalysis|JobPlayer|DispatchRule"
                    + "|CorePlacement|BccAdmission|BusyIntervals|ReleaseGrid|Interference"
                    + "|ServiceLoad|TaskDraft|PriorityBands|Resources|ReleaseTable)(\\$.*)?")
            .should()
            .dependOnClassesThat()
            .haveNameMatching(
                "dev\\.kairos\\.timing\\.(SchedulingAnalysis|HolisticAnalysis)(\\$.*)?"));
    check(
        noClasses()
            .that()
            .haveNameMatching("dev\\.kairos\\.timing\\.SchedulingAnalysis(\\$.*)?")
            .should()
            .dependOnClassesThat()
            .haveNameMatching("dev\\.kairos\\.timing\\.HolisticAnalysis(\\$.*)?"));
  }

  /** The rules see the classes they speak of, so a rule cannot pass by matching nothing. */
  @Test
  void everyModuleIsImported() {
    for (String module :
        new String[] {
          "dev.kairos.ir", "dev.kairos.timing", "dev.kairos.reports", "dev.kairos.generator.emit"
        }) {
      assertTrue(
          production.stream().anyMatch(c -> c.getPackageName().equals(module)),
          module + " has no classes on the test's class path");
    }
  }

  /** The emitter rule tells an analysis from its results, so it can fail. */
  @Test
  void theEmitterRuleTellsAnAnalysisFromItsResults() {
    assertTrue(ANALYSIS_INTERNALS.test(production.get(dev.kairos.timing.SchedulingAnalysis.class)));
    assertTrue(ANALYSIS_INTERNALS.test(production.get(dev.kairos.timing.BusyIntervals.class)));
    assertFalse(ANALYSIS_INTERNALS.test(production.get(dev.kairos.timing.NodePlan.class)));
    assertFalse(
        ANALYSIS_INTERNALS.test(
            production.get(dev.kairos.timing.EndToEndAnalysis.GateReport.class)));
  }

  private static void check(ArchRule rule) {
    final EvaluationResult result = rule.evaluate(production);
    assertFalse(
        result.hasViolation(), () -> String.join("\n", result.getFailureReport().getDetails()));
  }
}
