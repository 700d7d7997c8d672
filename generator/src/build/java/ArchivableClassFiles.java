import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.JSRInlinerAdapter;

/**
 * Rewrites the class files of the kairos jar that are older than Java 6 (EMF, log4j, ANTLR 3,
 * picocli, Guice's AOP alliance: about 1,600 classes) as Java 8 class files with stack map frames.
 *
 * <p>Why: the launcher maps the classes a run loaded from a class data sharing archive instead of
 * loading them from the jar one by one, and JDK 17 leaves pre-Java-6 classes out of such an
 * archive, and with them every class that extends or implements one (every EMF object, so most of
 * Xtext and the Kairos model: about 1,000 more). With every class archivable, `kairos check` of a
 * small model starts in about 1.0 s instead of 1.5 s. Nothing else changes: the bytecode is the
 * same, with frames computed by ASM (and any JSR/RET subroutine inlined, which Java 6 class files
 * may not use). A class whose frames need a class the jar does not hold (log4j's JMS and mail
 * appenders) is kept as it was; nothing loads it.
 *
 * <p>Usage: {@code java -cp <asm jars> ArchivableClassFiles <jar>} rewrites the jar in place.
 */
public final class ArchivableClassFiles {
  private static final int JAVA_6 = 50;

  private final Map<String, byte[]> entries = new LinkedHashMap<>();
  private final Map<String, Long> times = new HashMap<>();
  private final Map<String, ClassReader> readers = new HashMap<>();

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: ArchivableClassFiles JAR");
      System.exit(2);
    }
    Path jar = Path.of(args[0]);
    ArchivableClassFiles files = new ArchivableClassFiles();
    files.read(jar);
    Path rewritten = jar.resolveSibling(jar.getFileName() + ".rewriting");
    int upgraded = files.write(rewritten);
    Files.move(rewritten, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    System.out.println(
        "ArchivableClassFiles: " + upgraded + " class files of " + jar + " upgraded to Java 8");
  }

  private void read(Path jar) throws IOException {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
      for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
        entries.put(entry.getName(), in.readAllBytes());
        times.put(entry.getName(), entry.getTime());
      }
    }
  }

  private int write(Path target) throws IOException {
    int upgraded = 0;
    try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(target))) {
      for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
        byte[] bytes = entry.getValue();
        if (entry.getKey().endsWith(".class") && majorVersion(bytes) < JAVA_6) {
          byte[] upgradedBytes = upgrade(bytes);
          if (upgradedBytes != null) {
            bytes = upgradedBytes;
            upgraded++;
          }
        }
        ZipEntry copy = new ZipEntry(entry.getKey());
        copy.setTime(times.get(entry.getKey()));
        out.putNextEntry(copy);
        out.write(bytes);
        out.closeEntry();
      }
    }
    return upgraded;
  }

  private static int majorVersion(byte[] classFile) {
    return classFile.length < 8
        ? Integer.MAX_VALUE
        : (classFile[6] & 0xff) << 8 | classFile[7] & 0xff;
  }

  /** The class as a Java 8 class file, or null when its frames need a class nobody has. */
  private byte[] upgrade(byte[] classFile) {
    ClassWriter writer =
        new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
          @Override
          protected String getCommonSuperClass(String first, String second) {
            return commonSuperClass(first, second);
          }
        };
    ClassVisitor toJava8 =
        new ClassVisitor(Opcodes.ASM9, writer) {
          @Override
          public void visit(
              int version,
              int access,
              String name,
              String signature,
              String superName,
              String[] interfaces) {
            super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
          }

          @Override
          public MethodVisitor visitMethod(
              int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor method =
                super.visitMethod(access, name, descriptor, signature, exceptions);
            return new JSRInlinerAdapter(method, access, name, descriptor, signature, exceptions);
          }
        };
    try {
      new ClassReader(classFile).accept(toJava8, ClassReader.SKIP_FRAMES);
      return writer.toByteArray();
    } catch (MissingClass missing) {
      return null;
    }
  }

  /** What the verifier merges two reference types to: the same rule as ASM's own default. */
  private String commonSuperClass(String first, String second) {
    if (isAssignableFrom(first, second)) {
      return first;
    }
    if (isAssignableFrom(second, first)) {
      return second;
    }
    if (isInterface(first) || isInterface(second)) {
      return "java/lang/Object";
    }
    String candidate = first;
    do {
      candidate = reader(candidate).getSuperName();
    } while (!isAssignableFrom(candidate, second));
    return candidate;
  }

  private boolean isAssignableFrom(String target, String type) {
    Deque<String> pending = new ArrayDeque<>(List.of(type));
    while (!pending.isEmpty()) {
      String current = pending.pop();
      if (current.equals(target)) {
        return true;
      }
      ClassReader reader = reader(current);
      if (reader.getSuperName() != null) {
        pending.push(reader.getSuperName());
      }
      pending.addAll(List.of(reader.getInterfaces()));
    }
    return false;
  }

  private boolean isInterface(String type) {
    return (reader(type).getAccess() & Opcodes.ACC_INTERFACE) != 0;
  }

  /** The class from the jar, or else from the JDK (whose modules the launcher's JVM has). */
  private ClassReader reader(String type) {
    return readers.computeIfAbsent(
        type,
        name -> {
          byte[] inJar = entries.get(name + ".class");
          if (inJar != null) {
            return new ClassReader(inJar);
          }
          try (InputStream inJdk = ClassLoader.getSystemResourceAsStream(name + ".class")) {
            if (inJdk == null) {
              throw new MissingClass();
            }
            return new ClassReader(inJdk.readAllBytes());
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** A class referenced by the jar that neither it nor the JDK holds. */
  private static final class MissingClass extends RuntimeException {
    MissingClass() {
      super(null, null, false, false);
    }
  }
}
