package dev.zklock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * An inventory and orders service that shows zk-lock's features. Its state lives in
 * an H2 file database that several instances share; zk-lock keeps them from stepping
 * on each other.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class SampleApplication {

	/**
	 * Start the sample.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		LoopbackOnly.apply();
		SpringApplication.run(SampleApplication.class, args);
	}

}
