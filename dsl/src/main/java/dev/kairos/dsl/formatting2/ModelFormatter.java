package dev.kairos.dsl.formatting2;

import com.google.inject.Inject;
import com.google.inject.Provider;
import java.util.List;
import org.eclipse.xtext.formatting2.FormatterRequest;
import org.eclipse.xtext.formatting2.IFormatter2;
import org.eclipse.xtext.formatting2.regionaccess.ITextRegionAccess;
import org.eclipse.xtext.formatting2.regionaccess.ITextReplacement;
import org.eclipse.xtext.formatting2.regionaccess.TextRegionAccessBuilder;
import org.eclipse.xtext.resource.XtextResource;

/** Formats a whole parsed model with {@link KairosFormatter}: what `kairos format` runs. */
public class ModelFormatter {
  @Inject private Provider<IFormatter2> formatter;
  @Inject private Provider<FormatterRequest> requests;
  @Inject private Provider<TextRegionAccessBuilder> regionAccess;

  /** The formatted text of a resource; the resource must have no syntax errors. */
  public String format(XtextResource resource) {
    if (!resource.getErrors().isEmpty()) {
      throw new IllegalArgumentException("a model with syntax errors cannot be formatted");
    }
    final ITextRegionAccess access = regionAccess.get().forNodeModel(resource).create();
    final FormatterRequest request = requests.get().setTextRegionAccess(access);
    final List<ITextReplacement> replacements = formatter.get().format(request);
    return access.getRewriter().renderToString(replacements);
  }
}
