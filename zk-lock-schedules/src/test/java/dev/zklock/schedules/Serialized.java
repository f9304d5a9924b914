package dev.zklock.schedules;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Base64;

/**
 * Schedules and history records on one line of text, as the test JVM and its client
 * processes send them to each other.
 */
final class Serialized {

	private Serialized() {
	}

	static String encode(Serializable value) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
			out.writeObject(value);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot serialize " + value, ex);
		}
		return Base64.getEncoder().encodeToString(bytes.toByteArray());
	}

	@SuppressWarnings("unchecked")
	static <T> T decode(String line) {
		try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(line)))) {
			return (T) in.readObject();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + line, ex);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException("Cannot read " + line, ex);
		}
	}

}
