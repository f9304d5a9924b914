package dev.zklock.aop;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * What the main method of a Spring Boot worker JVM needs: its {@code --name=value}
 * arguments, and a quiet, non-web application whose shutdown the test drives through
 * commands rather than a shutdown hook.
 */
public final class WorkerApplications {

	private WorkerApplications() {
	}

	/**
	 * The worker's arguments.
	 * @param args the {@code --name=value} arguments
	 * @return the values by name
	 */
	public static Map<String, String> arguments(String[] args) {
		Map<String, String> arguments = new LinkedHashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			arguments.put(arg.substring(2, equals), arg.substring(equals + 1));
		}
		return arguments;
	}

	/**
	 * A builder of the worker's application.
	 * @param configuration the application's configuration class
	 * @param properties its properties
	 * @return the builder, to be run
	 */
	public static SpringApplicationBuilder builder(Class<?> configuration, Map<String, Object> properties) {
		Map<String, Object> all = new LinkedHashMap<>(properties);
		all.put("spring.main.register-shutdown-hook", "false");
		all.put("spring.docker.compose.enabled", "false");
		return new SpringApplicationBuilder(configuration).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(all);
	}

	/**
	 * The properties of a worker with 4 s sessions: its name, ZooKeeper and base path
	 * from the {@code --id=} and {@code --connect=} arguments.
	 * @param arguments the worker's arguments
	 * @param basePath the base path of its locks
	 * @return the properties, to be added to
	 */
	public static Map<String, Object> properties(Map<String, String> arguments, String basePath) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.application.name", arguments.get("id"));
		properties.put("zk-lock.connect-string", arguments.get("connect"));
		properties.put("zk-lock.base-path", basePath);
		properties.put("zk-lock.session-timeout", "4s");
		properties.put("zk-lock.startup.wait", "60s");
		return properties;
	}

	/**
	 * Report the running worker as {@code ready}, then follow the test's commands
	 * until {@code exit}, which closes the application, reports {@code exited} and
	 * ends the JVM.
	 * @param context the running application
	 * @param id the worker's id
	 * @param commands handles every other command
	 * @throws InterruptedException when interrupted while waiting for a command
	 */
	public static void serve(ConfigurableApplicationContext context, String id, Consumer<String> commands)
			throws InterruptedException {
		WorkerEvents.emit("ready", "id", id);
		while (true) {
			String command = ParentWatchdog.commands().take();
			if (command.equals("exit")) {
				context.close();
				WorkerEvents.emit("exited", "id", id);
				System.exit(0);
			}
			commands.accept(command);
		}
	}

}
