package dev.kairos.dsl.formatting2;

import dev.kairos.dsl.kairos.Element;
import dev.kairos.dsl.kairos.Field;
import dev.kairos.dsl.kairos.Import;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.Struct;
import org.eclipse.xtext.formatting2.AbstractJavaFormatter;
import org.eclipse.xtext.formatting2.IFormattableDocument;

public class KairosFormatter extends AbstractJavaFormatter {

  protected void format(Model model, IFormattableDocument doc) {
    // TODO: format HiddenRegions around keywords, attributes, cross references, etc.
    for (Import _import : model.getImports()) {
      doc.format(_import);
    }
    for (Element element : model.getElements()) {
      doc.format(element);
    }
  }

  protected void format(Struct struct, IFormattableDocument doc) {
    // TODO: format HiddenRegions around keywords, attributes, cross references, etc.
    for (Field field : struct.getFields()) {
      doc.format(field);
    }
  }

  // TODO: implement for Field, Enum, ExceptionDecl, Typedef, ConstDecl, SequenceTypeRef, Interface,
  // Operation, Parameter, Tmo, Ods, Segment, Eac, Gate, Channel, Spm, PeriodicAac, OneShotAac,
  // Window, TimePoint, Svm, Node, Network, System
}
