package dev.kairos.generator.lowering;

import dev.kairos.dsl.kairos.Aac;
import dev.kairos.dsl.kairos.BoolValue;
import dev.kairos.dsl.kairos.ConstDecl;
import dev.kairos.dsl.kairos.ConstValue;
import dev.kairos.dsl.kairos.Duration;
import dev.kairos.dsl.kairos.EnumDecl;
import dev.kairos.dsl.kairos.EnumLiteral;
import dev.kairos.dsl.kairos.EnumValue;
import dev.kairos.dsl.kairos.ExceptionDecl;
import dev.kairos.dsl.kairos.KairosPackage;
import dev.kairos.dsl.kairos.Model;
import dev.kairos.dsl.kairos.NamedTypeRef;
import dev.kairos.dsl.kairos.NamedValue;
import dev.kairos.dsl.kairos.NumberValue;
import dev.kairos.dsl.kairos.OneShotAac;
import dev.kairos.dsl.kairos.PeriodicAac;
import dev.kairos.dsl.kairos.PrimitiveTypeRef;
import dev.kairos.dsl.kairos.SegmentUse;
import dev.kairos.dsl.kairos.SequenceTypeRef;
import dev.kairos.dsl.kairos.StringTypeRef;
import dev.kairos.dsl.kairos.Struct;
import dev.kairos.dsl.kairos.TextValue;
import dev.kairos.dsl.kairos.TimePoint;
import dev.kairos.dsl.kairos.Typedef;
import dev.kairos.dsl.types.Bounds;
import dev.kairos.dsl.units.Quantities;
import dev.kairos.dsl.units.Quantities.QuantityException;
import dev.kairos.ir.Platform;
import dev.kairos.ir.Platform.Hardware;
import dev.kairos.ir.SourceRef;
import dev.kairos.ir.SystemModel;
import dev.kairos.ir.Tmos;
import dev.kairos.ir.Tmos.TmoClass;
import dev.kairos.ir.TypeUse;
import dev.kairos.ir.Types;
import dev.kairos.ir.Types.TypeDeclaration;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.nodemodel.INode;
import org.eclipse.xtext.nodemodel.util.NodeModelUtils;

/**
 * Lowers validated EMF models (one per .tmo file) into the analysis IR. This is the only place in
 * the generator that reads EMF; everything after it works on plain records.
 */
public final class ModelLowering {
  private final Function<URI, String> displayName;
  private final Map<dev.kairos.dsl.kairos.Tmo, TmoClass> tmoClasses = new HashMap<>();
  private final Map<dev.kairos.dsl.kairos.Hardware, Platform.PlatformFile> platformFiles =
      new HashMap<>();

  /**
   * @param displayName how a resource's file is named in sources and generated banners (a path
   *     relative to where the user ran the tool, never an absolute one)
   */
  public ModelLowering(Function<URI, String> displayName) {
    this.displayName = displayName;
  }

  public SystemModel lower(String modelName, List<Model> models) {
    final Map<TypeDeclaration, List<TypeUse.Named>> dependencies = new LinkedHashMap<>();
    final List<Types.Constant> constants = new ArrayList<>();
    final List<Types.Interface> interfaces = new ArrayList<>();
    final List<TmoClass> tmos = new ArrayList<>();
    final List<Platform.Node> nodes = new ArrayList<>();

    for (Model model : models) {
      final List<String> namespace = namespaceOf(model);
      for (EObject element : model.getElements()) {
        if (element instanceof Struct struct) {
          final var fields = fields(struct.getFields());
          dependencies.put(
              new Types.Aggregate(
                  namespace, struct.getName(), Types.DeclarationKind.STRUCT, fields, at(struct)),
              namedUses(fields));
        } else if (element instanceof ExceptionDecl exception) {
          final var fields = fields(exception.getFields());
          dependencies.put(
              new Types.Aggregate(
                  namespace,
                  exception.getName(),
                  Types.DeclarationKind.EXCEPTION,
                  fields,
                  at(exception)),
              namedUses(fields));
        } else if (element instanceof EnumDecl enumeration) {
          dependencies.put(
              new Types.Enumeration(
                  namespace,
                  enumeration.getName(),
                  enumeration.getLiterals().stream().map(EnumLiteral::getName).toList(),
                  at(enumeration)),
              List.of());
        } else if (element instanceof Typedef alias) {
          final TypeUse type = typeUse(alias.getType());
          dependencies.put(
              new Types.Alias(
                  namespace,
                  alias.getName(),
                  type,
                  Bounds.intValue(Bounds.arraySize(alias)),
                  at(alias)),
              namedUses(List.of(type)));
        } else if (element instanceof ConstDecl constant) {
          constants.add(
              new Types.Constant(
                  namespace,
                  constant.getName(),
                  typeUse(constant.getType()),
                  constantValue(constant.getValue()),
                  at(constant)));
        } else if (element instanceof dev.kairos.dsl.kairos.Interface iface) {
          interfaces.add(lowerInterface(namespace, iface));
        }
      }
    }
    final Map<String, Types.Interface> interfacesByName = new HashMap<>();
    for (Types.Interface iface : interfaces) {
      interfacesByName.put(qualified(iface.namespace(), iface.name()), iface);
    }
    for (Model model : models) {
      for (EObject element : model.getElements()) {
        if (element instanceof dev.kairos.dsl.kairos.Tmo tmo) {
          final TmoClass lowered = lowerTmo(namespaceOf(model), tmo, interfacesByName);
          tmoClasses.put(tmo, lowered);
          tmos.add(lowered);
        }
      }
    }
    final List<Platform.Network> networks = new ArrayList<>();
    final List<Platform.DistributedSystem> systems = new ArrayList<>();
    for (Model model : models) {
      for (EObject element : model.getElements()) {
        if (element instanceof dev.kairos.dsl.kairos.Node node) {
          nodes.add(lowerNode(node));
        } else if (element instanceof dev.kairos.dsl.kairos.Network network) {
          networks.add(
              new Platform.Network(
                  network.getName(),
                  network.getLatency() == null ? 0 : nanos(network.getLatency()),
                  network.getJitter() == null ? 0 : nanos(network.getJitter()),
                  network.getBandwidth() == null
                      ? Platform.Network.UNLIMITED
                      : bitsPerSecond(network.getBandwidth()),
                  network.getNodes().stream().map(dev.kairos.dsl.kairos.Node::getName).toList(),
                  network.getSecurity() != dev.kairos.dsl.kairos.NetworkSecurity.NONE,
                  at(network)));
        } else if (element instanceof dev.kairos.dsl.kairos.SystemDecl system) {
          systems.add(
              new Platform.DistributedSystem(
                  system.getName(),
                  system.getNodes().stream().map(dev.kairos.dsl.kairos.Node::getName).toList(),
                  lowerClockSync(system),
                  at(system)));
        }
      }
    }
    return new SystemModel(
            modelName,
            DependencyOrder.sort(dependencies),
            constants,
            interfaces,
            tmos,
            nodes,
            networks,
            systems)
        .withAuthenticatedCallsCharged();
  }

  // ------------------------------------------------------------------ types

  private List<Types.Field> fields(List<dev.kairos.dsl.kairos.Field> fields) {
    return fields.stream()
        .map(
            f ->
                new Types.Field(
                    f.getName(),
                    typeUse(f.getType()),
                    Bounds.intValue(Bounds.arraySize(f)),
                    Optional.ofNullable(f.getInitial()).map(ModelLowering::constantValue),
                    at(f)))
        .toList();
  }

  private static List<TypeUse.Named> namedUses(List<?> items) {
    final List<TypeUse.Named> uses = new ArrayList<>();
    for (Object item : items) {
      TypeUse type = item instanceof Types.Field field ? field.type() : (TypeUse) item;
      while (type instanceof TypeUse.Sequence sequence) {
        type = sequence.element();
      }
      if (type instanceof TypeUse.Named named) {
        uses.add(named);
      }
    }
    return uses;
  }

  private TypeUse typeUse(dev.kairos.dsl.kairos.TypeRef ref) {
    if (ref instanceof PrimitiveTypeRef primitive) {
      return new TypeUse.Primitive(TypeUse.PrimitiveKind.valueOf(primitive.getKind().name()));
    }
    if (ref instanceof StringTypeRef string) {
      return new TypeUse.BoundedString(Bounds.intValue(Bounds.of(string)));
    }
    if (ref instanceof SequenceTypeRef sequence) {
      return new TypeUse.Sequence(
          typeUse(sequence.getElementType()), Bounds.intValue(Bounds.of(sequence)));
    }
    if (ref instanceof NamedTypeRef named) {
      final EObject declaration = named.getType();
      final Model owner = EcoreUtil2.getContainerOfType(declaration, Model.class);
      return new TypeUse.Named(
          namespaceOf(owner),
          org.eclipse.xtext.util.SimpleAttributeResolver.NAME_RESOLVER.apply(declaration));
    }
    throw new IllegalStateException("unknown type reference " + ref);
  }

  private static Types.Value constantValue(ConstValue value) {
    if (value instanceof NumberValue number) {
      return new Types.NumberValue(number.isNegative(), number.getNumber());
    }
    if (value instanceof TextValue text) {
      return new Types.TextValue(text.getText());
    }
    if (value instanceof BoolValue bool) {
      return new Types.BoolValue(bool.isValue());
    }
    if (value instanceof EnumValue enumValue) {
      return enumValue(enumValue.getLiteral());
    }
    if (value instanceof NamedValue named && named.getTarget() instanceof EnumLiteral literal) {
      return enumValue(literal);
    }
    if (value instanceof NamedValue named && named.getTarget() instanceof ConstDecl constant) {
      return new Types.ConstantValue(
          namespaceOf(EcoreUtil2.getContainerOfType(constant, Model.class)), constant.getName());
    }
    throw new IllegalStateException("unknown constant value " + value);
  }

  private static Types.EnumValue enumValue(EnumLiteral literal) {
    final EnumDecl enumeration = (EnumDecl) literal.eContainer();
    final Model owner = EcoreUtil2.getContainerOfType(enumeration, Model.class);
    return new Types.EnumValue(namespaceOf(owner), enumeration.getName(), literal.getName());
  }

  private Types.Interface lowerInterface(
      List<String> namespace, dev.kairos.dsl.kairos.Interface iface) {
    final List<Types.Operation> operations = new ArrayList<>();
    for (dev.kairos.dsl.kairos.Operation op : iface.getOperations()) {
      final List<Types.Parameter> parameters =
          op.getParameters().stream()
              .map(
                  p ->
                      new Types.Parameter(
                          Types.Direction.valueOf(p.getDirection().name()),
                          typeUse(p.getType()),
                          p.getName()))
              .toList();
      final List<TypeUse.Named> raises =
          op.getRaises().stream()
              .map(
                  e ->
                      new TypeUse.Named(
                          namespaceOf(EcoreUtil2.getContainerOfType(e, Model.class)), e.getName()))
              .toList();
      operations.add(
          new Types.Operation(
              op.getName(),
              op.isOneway(),
              op.isVoid() ? null : typeUse(op.getReturnType()),
              parameters,
              raises,
              at(op)));
    }
    return new Types.Interface(namespace, iface.getName(), operations, at(iface));
  }

  // ------------------------------------------------------------------ TMOs

  private TmoClass lowerTmo(
      List<String> namespace,
      dev.kairos.dsl.kairos.Tmo tmo,
      Map<String, Types.Interface> interfacesByName) {
    final List<Types.Interface> implemented = new ArrayList<>();
    for (dev.kairos.dsl.kairos.Interface iface : tmo.getInterfaces()) {
      final Model owner = EcoreUtil2.getContainerOfType(iface, Model.class);
      implemented.add(interfacesByName.get(qualified(namespaceOf(owner), iface.getName())));
    }
    final List<Tmos.Segment> segments = new ArrayList<>();
    if (tmo.getOds() != null) {
      for (dev.kairos.dsl.kairos.Segment segment : tmo.getOds().getSegments()) {
        segments.add(new Tmos.Segment(segment.getName(), fields(segment.getFields()), at(segment)));
      }
    }
    final List<Tmos.Spm> spms = new ArrayList<>();
    final List<Tmos.Svm> svms = new ArrayList<>();
    for (dev.kairos.dsl.kairos.Method method : tmo.getMethods()) {
      if (method instanceof dev.kairos.dsl.kairos.Spm spm) {
        spms.add(lowerSpm(spm));
      } else if (method instanceof dev.kairos.dsl.kairos.Svm svm) {
        svms.add(lowerSvm(svm, implemented));
      }
    }
    final List<Tmos.Gate> gates = new ArrayList<>();
    final List<Tmos.Channel> channels = new ArrayList<>();
    if (tmo.getEac() != null) {
      for (dev.kairos.dsl.kairos.Gate gate : tmo.getEac().getGates()) {
        gates.add(
            new Tmos.Gate(
                gate.getName(),
                qualified(
                    namespaceOf(EcoreUtil2.getContainerOfType(gate.getCallee(), Model.class)),
                    gate.getCallee().getName()),
                gate.getMethod().getName(),
                gate.isNonBlocking(),
                nanos(gate.getDeadline()),
                at(gate),
                callsOneway(gate)));
      }
      for (dev.kairos.dsl.kairos.Channel channel : tmo.getEac().getChannels()) {
        channels.add(
            new Tmos.Channel(
                channel.getName(),
                typeUse(channel.getType()),
                Tmos.Reliability.valueOf(channel.getReliability().name()),
                written(channel, KairosPackage.Literals.CHANNEL__DEPTH) ? channel.getDepth() : 1,
                channel.getValidity() == null ? 0 : nanos(channel.getValidity()),
                written(channel, KairosPackage.Literals.CHANNEL__FAN_OUT) ? channel.getFanOut() : 1,
                at(channel)));
      }
    }
    return new TmoClass(
        namespace,
        tmo.getName(),
        implemented.stream().map(i -> qualified(i.namespace(), i.name())).toList(),
        segments,
        spms,
        svms,
        gates,
        channels,
        at(tmo));
  }

  private Tmos.Spm lowerSpm(dev.kairos.dsl.kairos.Spm spm) {
    final Aac aac = spm.getAac();
    long first = 0;
    long last = Tmos.FOREVER;
    long period = 0;
    final dev.kairos.dsl.kairos.Window window;
    if (aac instanceof PeriodicAac periodic) {
      first = nanos(periodic.getFrom());
      last = periodic.isForever() ? Tmos.FOREVER : nanos(periodic.getTo());
      period = nanos(periodic.getPeriod());
      window = periodic.getWindow();
    } else {
      window = ((OneShotAac) aac).getWindow();
      last = 0;
    }
    return new Tmos.Spm(
        spm.getName(),
        first,
        last,
        period,
        offset(window.getEarliest()),
        offset(window.getLatest()),
        offset(window.getDeadline()),
        nanos(spm.getWcet()),
        Tmos.Criticality.valueOf(spm.getCriticality().name()),
        spm.getImportance(),
        uses(spm.getUses()),
        calls(spm.getCalls()),
        channelUses(spm),
        at(spm));
  }

  /** Whether the operation a gate calls is `oneway`: a call through it waits for no reply. */
  private static boolean callsOneway(dev.kairos.dsl.kairos.Gate gate) {
    for (dev.kairos.dsl.kairos.Interface iface : gate.getCallee().getInterfaces()) {
      for (dev.kairos.dsl.kairos.Operation op : iface.getOperations()) {
        if (op.getName().equals(gate.getMethod().getName())) {
          return op.isOneway();
        }
      }
    }
    return false;
  }

  private Tmos.Svm lowerSvm(dev.kairos.dsl.kairos.Svm svm, List<Types.Interface> implemented) {
    Optional<Types.Operation> signature = Optional.empty();
    for (Types.Interface iface : implemented) {
      for (Types.Operation op : iface.operations()) {
        if (op.name().equals(svm.getName())) {
          signature = Optional.of(op);
        }
      }
    }
    long minInterArrival = 0;
    if (svm.getMaxRate() != null) {
      try {
        minInterArrival = Quantities.periodOf(svm.getMaxRate());
      } catch (QuantityException e) {
        throw new IllegalStateException("validated model has a bad rate: " + e.getMessage(), e);
      }
    }
    return new Tmos.Svm(
        svm.getName(),
        nanos(svm.getGct()),
        nanos(svm.getWcet()),
        Tmos.Criticality.valueOf(svm.getCriticality().name()),
        svm.getImportance(),
        minInterArrival,
        uses(svm.getUses()),
        calls(svm.getCalls()),
        channelUses(svm),
        signature,
        at(svm));
  }

  private static List<String> calls(List<dev.kairos.dsl.kairos.Gate> gates) {
    return gates.stream().map(dev.kairos.dsl.kairos.Gate::getName).toList();
  }

  /** What a method publishes, then what it reads, each in the order written. */
  private static List<Tmos.ChannelUse> channelUses(dev.kairos.dsl.kairos.Method method) {
    final List<Tmos.ChannelUse> uses = new ArrayList<>();
    for (dev.kairos.dsl.kairos.Channel channel : method.getPublishes()) {
      uses.add(new Tmos.ChannelUse(channel.getName(), Tmos.ChannelAccess.PUBLISH));
    }
    for (dev.kairos.dsl.kairos.Channel channel : method.getReads()) {
      uses.add(new Tmos.ChannelUse(channel.getName(), Tmos.ChannelAccess.READ));
    }
    return List.copyOf(uses);
  }

  /** Whether an optional number was written (one left out reads 0, as a written 0 would). */
  private static boolean written(EObject owner, EStructuralFeature feature) {
    return !NodeModelUtils.findNodesForFeature(owner, feature).isEmpty();
  }

  private static List<Tmos.SegmentAccess> uses(List<SegmentUse> uses) {
    return uses.stream()
        .map(
            u ->
                new Tmos.SegmentAccess(
                    u.getSegment().getName(), Tmos.Access.valueOf(u.getAccess().name())))
        .toList();
  }

  // ------------------------------------------------------------------ platform

  private Platform.Node lowerNode(dev.kairos.dsl.kairos.Node node) {
    Hardware hardware = Platform.REFERENCE;
    if (node.getHardware() != null) {
      final dev.kairos.dsl.kairos.Hardware h = node.getHardware();
      hardware =
          new Hardware(
              h.getName(),
              h.getCores() > 0 ? h.getCores() : 1,
              h.getSpeed() == null ? BigDecimal.ONE : new BigDecimal(h.getSpeed()),
              h.getPlatform() == null
                  ? Optional.empty()
                  : Optional.of(platformFiles.computeIfAbsent(h, this::readPlatformFile)));
    }
    final List<Platform.Deployment> deployments = new ArrayList<>();
    for (dev.kairos.dsl.kairos.Deployment deployment : node.getDeployments()) {
      deployments.add(
          new Platform.Deployment(
              deployment.getName(),
              tmoClasses.get(deployment.getTmo()),
              deployment.isPinned() ? deployment.getCore() : Platform.Deployment.UNPLACED,
              at(deployment)));
    }
    return new Platform.Node(
        node.getName(),
        Platform.OperatingSystem.valueOf(node.getOs().name()),
        Platform.Strategy.valueOf(node.getScheduling().name()),
        hardware,
        node.getEndpoint(),
        node.getHost() == null ? "" : node.getHost(),
        deployments,
        at(node));
  }

  // ------------------------------------------------------------------ helpers

  private static long offset(TimePoint point) {
    return point.getOffset() == null ? 0 : nanos(point.getOffset());
  }

  private static long nanos(Duration duration) {
    try {
      return Quantities.nanoseconds(duration);
    } catch (QuantityException e) {
      throw new IllegalStateException("validated model has a bad duration: " + e.getMessage(), e);
    }
  }

  private static long bitsPerSecond(dev.kairos.dsl.kairos.Bandwidth bandwidth) {
    try {
      return Quantities.bitsPerSecond(bandwidth);
    } catch (QuantityException e) {
      throw new IllegalStateException("validated model has a bad bandwidth: " + e.getMessage(), e);
    }
  }

  /** A system's {@code clock-sync}, at the line of its clause; {@code null} when it has none. */
  private Platform.ClockSync lowerClockSync(dev.kairos.dsl.kairos.SystemDecl system) {
    if (system.getClockMaster() == null || system.getClockPeriod() == null) {
      return null;
    }
    return new Platform.ClockSync(
        system.getClockMaster().getName(),
        nanos(system.getClockPeriod()),
        at(system, KairosPackage.Literals.SYSTEM_DECL__CLOCK_MASTER));
  }

  /** The platform file a hardware names, relative to the model file that names it. */
  private Platform.PlatformFile readPlatformFile(dev.kairos.dsl.kairos.Hardware hardware) {
    final URI uri = hardware.eResource().getURI();
    final Optional<java.nio.file.Path> directory =
        uri.isFile()
            ? Optional.ofNullable(java.nio.file.Path.of(uri.toFileString()).getParent())
            : Optional.empty();
    return PlatformFiles.read(
        hardware.getPlatform(), directory, at(hardware, KairosPackage.Literals.HARDWARE__PLATFORM));
  }

  /** Where one clause of an element is written: its line, or the element's without it. */
  private SourceRef at(EObject object, EStructuralFeature clause) {
    final List<INode> nodes = NodeModelUtils.findNodesForFeature(object, clause);
    if (nodes.isEmpty()) {
      return at(object);
    }
    final INode node = nodes.get(0);
    return new SourceRef(
        displayName.apply(object.eResource().getURI()),
        node.getStartLine(),
        NodeModelUtils.getLineAndColumn(node, node.getOffset()).getColumn());
  }

  private SourceRef at(EObject object) {
    final INode node = NodeModelUtils.getNode(object);
    final int line = node == null ? 0 : node.getStartLine();
    return new SourceRef(displayName.apply(object.eResource().getURI()), line);
  }

  static List<String> namespaceOf(Model model) {
    if (model == null || model.getName() == null || model.getName().isEmpty()) {
      return List.of();
    }
    return Arrays.asList(model.getName().split("\\."));
  }

  static String qualified(List<String> namespace, String name) {
    return namespace.isEmpty() ? name : String.join(".", namespace) + "." + name;
  }
}
