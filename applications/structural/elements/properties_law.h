// PropertiesLaw: the constitutive law an element's properties assign, the
// prototype its Gauss points clone. Every structural element asks for it the
// same way, so that a deck whose materials file assigns no law fails with the
// same message naming the element and the properties.
#pragma once

#include "kernel/core/error.h"
#include "kernel/model/constitutive_law.h"
#include "kernel/model/element.h"

namespace tessera::structural {

inline const ConstitutiveLaw::Pointer& PropertiesLaw(const Element& element) {
  if (!element.HasProperties()) TESSERA_ERROR(element.Info(), ": has no properties");
  const Properties& properties = element.GetProperties();
  const ConstitutiveLaw::Pointer& law = properties.GetConstitutiveLaw();
  if (!law)
    TESSERA_ERROR(element.Info(), ": properties ", properties.Id(),
                  " have no constitutive law (the materials file assigns one)");
  return law;
}

}  // namespace tessera::structural
