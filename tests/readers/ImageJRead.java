// Opens each TIFF or PNG named on the command line with ImageJ (IJ.openImage, as File > Open does
// without Bio-Formats) and dumps what ImageJ shows: a line "width height bitDepth", then the first
// slice's pixels as ImageJ holds them (8-bit bytes, 16-bit shorts, 32-bit floats, RGB packed ints;
// big-endian). Arguments come in pairs: INPUT DUMP. A file ImageJ does not open gets no dump, and a
// line on stderr; the run goes on. Run by tests/readers/test_readers.py under a headless JVM with
// Debian's ij.jar on the class path (java's single-file launcher compiles this file).
import ij.IJ;
import ij.ImagePlus;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;

public class ImageJRead {
  public static void main(String[] args) throws Exception {
    for (int i = 0; i + 1 < args.length; i += 2) {
      ImagePlus image = null;
      try {
        image = IJ.openImage(args[i]);
      } catch (Exception e) {
        System.err.println(args[i] + ": " + e);
      }
      if (image == null) {
        System.err.println(args[i] + ": ImageJ did not open it");
        continue;
      }
      Object pixels = image.getProcessor().getPixels();
      try (DataOutputStream out =
               new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[i + 1])))) {
        out.writeBytes(image.getWidth() + " " + image.getHeight() + " " + image.getBitDepth() + "\n");
        if (pixels instanceof byte[]) out.write((byte[]) pixels);
        else if (pixels instanceof short[]) for (short v : (short[]) pixels) out.writeShort(v);
        else if (pixels instanceof float[]) for (float v : (float[]) pixels) out.writeFloat(v);
        else if (pixels instanceof int[]) for (int v : (int[]) pixels) out.writeInt(v);
      }
    }
  }
}
