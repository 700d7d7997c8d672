package dev.kairos.dsl.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Inject;
import com.google.inject.Provider;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.validation.IssueCodes;
import java.util.List;
import org.eclipse.emf.common.util.URI;
import org.eclipse.xtext.resource.XtextResourceSet;
import org.eclipse.xtext.testing.InjectWith;
import org.eclipse.xtext.testing.extensions.InjectionExtension;
import org.eclipse.xtext.testing.util.ParseHelper;
import org.eclipse.xtext.testing.validation.ValidationTestHelper;
import org.eclipse.xtext.validation.Issue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A system of several files: names per package across files, imports, empty files. */
@ExtendWith(InjectionExtension.class)
@InjectWith(KairosInjectorProvider.class)
class FilesAndPackagesTest {
  @Inject private ParseHelper<Model> parser;
  @Inject private ValidationTestHelper validation;
  @Inject private Provider<XtextResourceSet> resourceSets;

  /** Parses each text as its own file (a.tmo, b.tmo, ...) of one system. */
  private List<Model> system(String... files) throws Exception {
    final XtextResourceSet set = resourceSets.get();
    final List<Model> models = new java.util.ArrayList<>();
    for (int i = 0; i < files.length; i++) {
      models.add(
          parser.parse(files[i], URI.createURI("memory:/" + (char) ('a' + i) + ".tmo"), set));
    }
    return models;
  }

  @Test
  void aNameIsDeclaredOncePerPackageAcrossFiles() throws Exception {
    final String a =
        "package s\nstruct Point { double x; }\ntmo Worker { }\nnode n1 { os sim deploy Worker as w }\n";
    final String b =
        "package s\n\nstruct Point { double y; }\nenum Worker { A }\nnode n1 { os sim }\n";
    final List<Model> models = system(a, b);
    validation.assertError(
        models.get(0),
        Literals.STRUCT,
        IssueCodes.DUPLICATE_NAME,
        a.indexOf("Point"),
        "Point".length(),
        "struct 'Point' is also declared in b.tmo:3; package s declares each name once");
    validation.assertError(
        models.get(1),
        Literals.STRUCT,
        IssueCodes.DUPLICATE_NAME,
        b.indexOf("Point"),
        "Point".length(),
        "also declared in a.tmo:2");
    validation.assertError(
        models.get(0), Literals.TMO, IssueCodes.DUPLICATE_NAME, a.indexOf("Worker"), 6);
    validation.assertError(
        models.get(1), Literals.ENUM_DECL, IssueCodes.DUPLICATE_NAME, b.indexOf("Worker"), 6);
    validation.assertError(
        models.get(1), Literals.NODE, IssueCodes.DUPLICATE_NAME, b.indexOf("n1"), 2);
  }

  @Test
  void equalSimpleNamesInDifferentPackagesAreFine() throws Exception {
    final List<Model> models =
        system(
            "package geo\nstruct Point { double x; }\ntmo Worker { }\n"
                + "node a { os sim deploy Worker as w }\n",
            "package sims\nstruct Point { double x; }\ntmo Worker { }\n"
                + "node b { os sim deploy Worker as w }\n");
    for (Model model : models) {
      validation.assertNoErrors(model);
    }
  }

  @Test
  void nodesOfEqualNamesInDifferentPackagesWouldBuildOneExecutable() throws Exception {
    final String b = "package two\nnode n1 { os sim }\n";
    final List<Model> models = system("package one\nnode n1 { os sim }\n", b);
    validation.assertError(
        models.get(1),
        Literals.NODE,
        IssueCodes.NAME_COLLISION,
        b.indexOf("n1"),
        2,
        "nodes 'one.n1' and 'two.n1' would build the same executable n1");
    final String cased = "node Board { os sim }\nnode board { os sim }\n";
    validation.assertError(
        parser.parse(cased), Literals.NODE, IssueCodes.NAME_COLLISION, cased.indexOf("board"), 5);
  }

  @Test
  void tmosThatDifferOnlyInCaseCollideOnlyInOnePackage() throws Exception {
    final String text = "package p\ntmo Worker { }\ntmo worker { }\n";
    validation.assertError(
        parser.parse(text),
        Literals.TMO,
        IssueCodes.NAME_COLLISION,
        text.indexOf("worker"),
        6,
        "differ only in case");
    for (Model model :
        system("package p\ntmo Worker { }\n", "package q\ntmo worker { }\nstruct WorkerBase { }")) {
      validation.assertNoErrors(model);
    }
  }

  @Test
  void anImportThatMatchesNothingIsAnError() throws Exception {
    final String text = "package nav\nimport nothere.*\nimport geo.Pointt\nimport geo.Point\n";
    final List<Model> models = system("package geo\nstruct Point { double x; }\n", text);
    validation.assertError(
        models.get(1),
        Literals.IMPORT,
        IssueCodes.UNRESOLVED_IMPORT,
        text.indexOf("nothere.*"),
        "nothere.*".length(),
        "import nothere.* matches nothing");
    validation.assertError(
        models.get(1),
        Literals.IMPORT,
        IssueCodes.UNRESOLVED_IMPORT,
        text.indexOf("geo.Pointt"),
        "geo.Pointt".length());
    final List<Issue> imports =
        validation.validate(models.get(1)).stream()
            .filter(i -> IssueCodes.UNRESOLVED_IMPORT.equals(i.getCode()))
            .toList();
    assertEquals(2, imports.size(), imports.toString());
  }

  @Test
  void importsOfPackagesAndParentsOfPackagesMatch() throws Exception {
    final List<Model> models =
        system(
            "package avionics.geo\nstruct Point { double x; }\n",
            "package nav\nimport avionics.*\nimport avionics.geo.*\n"
                + "struct Leg { geo.Point a; Point b; }\n");
    validation.assertNoIssues(models.get(1));
  }

  @Test
  void packagesMayImportEachOther() throws Exception {
    // Imports only bring names into scope; a cycle of imports is no cycle of types.
    final List<Model> models =
        system(
            "package a\nimport b.*\nstruct Outer { Inner inner; }\nstruct Leaf { double x; }\n",
            "package b\nimport a.*\nstruct Inner { Leaf leaf; }\n");
    for (Model model : models) {
      validation.assertNoIssues(model);
    }
  }

  @Test
  void aFileThatDeclaresNothingIsAWarning() throws Exception {
    final String text = "package empty\nimport empty.*\n";
    final Model model = parser.parse(text);
    validation.assertWarning(
        model, Literals.MODEL, IssueCodes.EMPTY_MODEL, text.indexOf("empty"), "empty".length());
    final List<Issue> broken = validation.validate(parser.parse("package p\ntmo {"));
    assertTrue(
        broken.stream().noneMatch(i -> IssueCodes.EMPTY_MODEL.equals(i.getCode())),
        "a file with syntax errors is not also called empty: " + broken);
  }
}
