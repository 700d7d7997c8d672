package dev.kairos.generator.emit;

import dev.kairos.ir.Platform.DistributedSystem;
import dev.kairos.ir.Platform.Node;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.Types.Interface;
import dev.kairos.ir.wire.MaxEncodedSize;
import dev.kairos.ir.wire.OperationMessages;
import dev.kairos.timing.NodePlan;
import dev.kairos.timing.TimingPlan;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Every file of a system's C++ project: the one place that decides what is emitted where. */
public final class CppGenerator {
  private CppGenerator() {}

  /** What was generated: files for the output directory, and starters for hand-written code. */
  public record Output(List<GeneratedFile> generated, List<GeneratedFile> userStarters) {}

  /**
   * @param implDirFromOutput the directory of hand-written code, relative to the output directory
   *     (with forward slashes)
   */
  public static Output generate(SystemModel system, TimingPlan analysis, String implDirFromOutput) {
    final Set<String> modelFiles = new LinkedHashSet<>();
    system.tmos().forEach(t -> modelFiles.add(t.source().file()));
    system.nodes().forEach(n -> modelFiles.add(n.source().file()));
    SystemMainEmitter.inOneProcess(system).forEach(s -> modelFiles.add(s.source().file()));
    system.types().forEach(t -> modelFiles.add(t.source().file()));
    final List<String> files = List.copyOf(modelFiles);

    final List<GeneratedFile> generated = new ArrayList<>();
    final List<GeneratedFile> starters = new ArrayList<>();
    generated.add(TypesEmitter.emit(system, files));
    final MaxEncodedSize sizes = new MaxEncodedSize(system);
    generated.add(TypesCdrEmitter.emit(system, sizes, files));
    final OperationMessages messages = new OperationMessages(sizes);
    for (Interface iface : system.interfaces()) {
      generated.add(InterfaceCdrEmitter.emit(iface, messages));
    }
    for (TmoClass tmo : system.tmos()) {
      generated.add(ServantEmitter.emit(system, tmo));
      starters.addAll(UserCodeEmitter.emit(tmo));
    }
    for (int i = 0; i < system.nodes().size(); i++) {
      final Node node = system.nodes().get(i);
      final NodePlan report = analysis.nodes().get(i);
      generated.add(ScheduleEmitter.emit(node, report));
      generated.add(NodeProgramEmitter.header(node));
      generated.add(NodeProgramEmitter.source(system, analysis, node));
      generated.add(NodeMainEmitter.emit(node));
    }
    for (DistributedSystem distributed : SystemMainEmitter.inOneProcess(system)) {
      generated.add(SystemMainEmitter.emit(system, distributed));
    }
    if (DdsEmitter.needed(system)) {
      generated.add(DdsIdl.idl(system, files));
      generated.add(DdsEmitter.converters(system, files));
    }
    generated.add(CMakeEmitter.emit(system, files, implDirFromOutput));
    return new Output(generated, starters);
  }
}
